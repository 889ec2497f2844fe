// eSpeak NG on a worker thread: synthesis is synchronous and would stall the event loop (heartbeats, the API).
// Plain JavaScript so it loads the same under tsx and in production; the text goes through eSpeak's own file system.
import { parentPort, workerData } from 'node:worker_threads';
import ESpeakNg from 'espeak-ng';

const espeak = await ESpeakNg({
  arguments: ['-v', 'en-us', '-f', 'input.txt', '-w', 'speech.wav'],
  preRun: [(module) => module.FS.writeFile('input.txt', workerData.text)],
});
const wav = espeak.FS.readFile('speech.wav');
parentPort.postMessage(wav, [wav.buffer]);
