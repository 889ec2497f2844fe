// Local text-to-audio: eSpeak NG (formant synthesis, compiled to WebAssembly) speaks the prompt into a WAV, on a
// worker thread of its own (espeak.worker.mjs) that is terminated when the call is aborted.
import { Worker } from 'node:worker_threads';
import { type LocalEngine, ProviderRefusal } from '../types.ts';

const workerUrl = new URL('./espeak.worker.mjs', import.meta.url);

function synthesise(text: string, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: { text } });
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
