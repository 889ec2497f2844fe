// Local text-to-audio: eSpeak NG (formant synthesis, compiled to WebAssembly) speaks the prompt into a WAV, on a
// worker thread of its own (espeak.worker.mjs) that is terminated when the call is aborted.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type LocalEngine, ProviderRefusal } from '../types.ts';

const workerUrl = new URL('./espeak.worker.mjs', import.meta.url);

// Node's WebAssembly global: the TypeScript libs this project builds with declare none. A compiled module is opaque here.
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } };

// Its 18 MB of WebAssembly (voices included) compiled once per process and shared with every call's worker, instead
// of again in each (about 60 ms of CPU a call).
let compiled: Promise<object> | undefined;
const espeakModule = () =>
  (compiled ??= readFile(createRequire(import.meta.url).resolve('espeak-ng/dist/espeak-ng.wasm')).then((bytes) =>
    wasm.compile(bytes),
  ));

async function synthesise(text: string, signal: AbortSignal): Promise<Buffer> {
  const module = await espeakModule();
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: { text, module } });
    const abort = () => void worker.terminate();
    signal.addEventListener('abort', abort, { once: true });
    const settle = () => signal.removeEventListener('abort', abort);
    worker.once('message', (wav: Uint8Array) => {
      settle();
      resolve(Buffer.from(wav));
    });
    worker.once('error', (error) => {
      settle();
      reject(error);
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(signal.aborted ? 'speech synthesis was aborted' : `speech synthesis stopped (exit ${code})`));
    });
  });
}

export const espeakEngine: LocalEngine = async (request, _model, context) => {
  const text = request.prompt?.trim();
  if (!text) throw new ProviderRefusal('text-to-audio needs a prompt');
  const wav = await synthesise(text, context.signal);
  return { files: [{ data: wav, extension: 'wav', contentType: 'audio/wav' }] };
};
