// eSpeak NG on a worker thread: synthesis is synchronous and would stall the event loop (heartbeats, the API).
// Plain JavaScript so it loads the same under tsx and in production; the text goes through eSpeak's own file system.
import { parentPort, workerData } from 'node:worker_threads';
import ESpeakNg from 'espeak-ng';

// Its file system's setup throws (and catches) an error per path it creates, each capturing a stack: none needed.
Error.stackTraceLimit = 0;

const espeak = await ESpeakNg({
  arguments: ['-v', 'en-us', '-f', 'input.txt', '-w', 'speech.wav'],
  // The module the engine compiled once (espeak.engine.ts): instantiated here, not compiled again.
  instantiateWasm: (imports, receive) => {
    WebAssembly.instantiate(workerData.module, imports).then((instance) => receive(instance, workerData.module));
    return {};
  },
  preRun: [(module) => module.FS.writeFile('input.txt', workerData.text)],
});
const wav = espeak.FS.readFile('speech.wav');
parentPort.postMessage(wav, [wav.buffer]);
