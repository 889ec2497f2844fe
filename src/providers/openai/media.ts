// Images, speech and transcription through an OpenAI-compatible server with the official `openai` SDK.
import OpenAI, { toFile } from 'openai';
import type { Config } from '../../config.ts';
import { ProviderRefusal, type ProviderRunner } from '../types.ts';
import { downloadOutput } from '../upstream-output.ts';
import { classifyOpenAIError } from './chat.ts';

type OpenAIConfig = Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY'>;

const clientFor = (config: OpenAIConfig, timeoutSeconds: number) =>
  new OpenAI({ baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY ?? 'not-needed', maxRetries: 0, timeout: timeoutSeconds * 1000 });

async function calling<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw classifyOpenAIError(error);
  }
}

/** text-to-image: /images/generations; base64 or URL results become PNG files. */
export function createOpenAIImageRunner(config: OpenAIConfig & Pick<Config, 'INPUT_MAX_BYTES'>): ProviderRunner {
  return async (request, model, context) => {
    if (!request.prompt) throw new ProviderRefusal('text-to-image needs a prompt');
    const client = clientFor(config, model.timeout_seconds);
    const response = await calling(() => client.images.generate({
      model: model.upstream.model, prompt: request.prompt!, n: request.num_outputs ?? 1,
      ...(request.resolution ? { size: request.resolution as '1024x1024' } : {}),
    }, { signal: context.signal }));
    const files = await Promise.all((response.data ?? []).map(async (image) => {
      if (image.b64_json) return { data: Buffer.from(image.b64_json, 'base64'), extension: 'png', contentType: 'image/png' };
      if (image.url) return downloadOutput(image.url, { maxBytes: config.INPUT_MAX_BYTES, timeoutMs: 60_000, signal: context.signal });
      throw new ProviderRefusal('The model returned no image.');
    }));
    if (files.length === 0) throw new ProviderRefusal('The model returned no image.');
    return { files };
  };
}

/** text-to-audio: /audio/speech as MP3. */
export function createOpenAISpeechRunner(config: OpenAIConfig): ProviderRunner {
  return async (request, model, context) => {
    if (!request.prompt) throw new ProviderRefusal('text-to-audio needs a prompt');
    const client = clientFor(config, model.timeout_seconds);
    const response = await calling(() => client.audio.speech.create({ model: model.upstream.model, voice: 'alloy', input: request.prompt!, response_format: 'mp3' }, { signal: context.signal }));
    return { files: [{ data: Buffer.from(await response.arrayBuffer()), extension: 'mp3', contentType: 'audio/mpeg' }] };
  };
}

/** speech-to-text: /audio/transcriptions of the caller's audio (downloaded with the input guard); the text as .txt. */
export function createOpenAITranscriptionRunner(config: OpenAIConfig): ProviderRunner {
  return async (request, model, context) => {
    if (!request.audio_url) throw new ProviderRefusal('speech-to-text needs audio_url');
    const { data } = await context.fetchInput(request.audio_url);
    const name = new URL(request.audio_url).pathname.split('/').pop() || 'audio';
    const client = clientFor(config, model.timeout_seconds);
    const file = await toFile(data, name);
    const transcript = await calling(() => client.audio.transcriptions.create({
      model: model.upstream.model, file, response_format: 'verbose_json',
    }, { signal: context.signal })) as { text: string; duration?: number };
    return {
      files: [{ data: Buffer.from(transcript.text ?? '', 'utf8'), extension: 'txt', contentType: 'text/plain; charset=utf-8' }],
      // Charged by the length the server measured, when it says.
      ...(transcript.duration !== undefined ? { usage: { input_seconds: transcript.duration } } : {}),
    };
  };
}
