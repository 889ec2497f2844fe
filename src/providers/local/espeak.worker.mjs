// eSpeak NG (WebAssembly) on a worker thread: synthesis is synchronous and takes about half a millisecond per
// character, which on the main thread would stall the worker's heartbeats and every other task (and the API in
// the all-in-one process). Plain JavaScript, so it loads the same under tsx and in production.
// The text goes through eSpeak's own file system, never through its command line.
import { parentPort, workerData } from 'node:worker_threads';
import ESpeakNg from 'espeak-ng';

const espeak = await ESpeakNg({
  arguments: ['-v', 'en-us', '-f', 'input.txt', '-w', 'speech.wav'],
  preRun: [(module) => module.FS.writeFile('input.txt', workerData.text)],
});
const wav = espeak.FS.readFile('speech.wav');
parentPort.postMessage(wav, [wav.buffer]);
