// Local text-to-audio: eSpeak NG (formant synthesis, compiled to WebAssembly) speaks the prompt into a WAV.
// The text goes through eSpeak's own file system, never through its command line.
import ESpeakNg from 'espeak-ng';
import { type LocalEngine, ProviderRefusal } from '../types.ts';

interface EmscriptenModule {
  FS: { writeFile(path: string, data: string): void; readFile(path: string): Uint8Array };
}

export const espeakEngine: LocalEngine = async (request) => {
  const text = request.prompt?.trim();
  if (!text) throw new ProviderRefusal('text-to-audio needs a prompt');
  const espeak = (await ESpeakNg({
    arguments: ['-v', 'en-us', '-f', 'input.txt', '-w', 'speech.wav'],
    preRun: [(module: EmscriptenModule) => module.FS.writeFile('input.txt', text)],
  })) as EmscriptenModule;
  return { files: [{ data: Buffer.from(espeak.FS.readFile('speech.wav')), extension: 'wav', contentType: 'audio/wav' }] };
};
