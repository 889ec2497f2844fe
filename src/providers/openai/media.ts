// Images, speech and transcription through an OpenAI-compatible server with the official `openai` SDK.
import { join } from 'node:path';
import { toFile } from 'openai';
import { ProviderRefusal, type ProviderRunner } from '../types.ts';
import { downloadOutput } from '../upstream-output.ts';
import type { OpenAIUpstream } from './client.ts';

/** text-to-image: /images/generations; base64 or URL results become PNG files. */
export function createOpenAIImageRunner(upstream: OpenAIUpstream): ProviderRunner {
  return async (request, model, context) => {
    if (!request.prompt) throw new ProviderRefusal('text-to-image needs a prompt');
    const response = await upstream.call(model, context.signal, (options) =>
      upstream.client.images.generate(
        {
          model: model.upstream.model,
          prompt: request.prompt!,
          n: request.num_outputs ?? 1,
          ...(request.resolution ? { size: request.resolution as '1024x1024' } : {}),
        },
        options,
      ),
    );
    const files = await Promise.all(
      (response.data ?? []).map(async (image, index) => {
        if (image.b64_json)
          return { data: Buffer.from(image.b64_json, 'base64'), extension: 'png', contentType: 'image/png' };
        if (image.url)
          return downloadOutput(image.url, {
            path: join(context.outputDir, `image-${index}`),
            maxBytes: upstream.maxOutputBytes,
            timeoutMs: 60_000,
            allowPrivate: upstream.allowPrivateOutputs,
            signal: context.signal,
          });
        throw new ProviderRefusal('The model returned no image.');
      }),
    );
    if (files.length === 0) throw new ProviderRefusal('The model returned no image.');
    return { files };
  };
}

/** text-to-audio: /audio/speech as MP3. */
export function createOpenAISpeechRunner(upstream: OpenAIUpstream): ProviderRunner {
  return async (request, model, context) => {
    if (!request.prompt) throw new ProviderRefusal('text-to-audio needs a prompt');
    const response = await upstream.call(model, context.signal, (options) =>
      upstream.client.audio.speech.create(
        { model: model.upstream.model, voice: 'alloy', input: request.prompt!, response_format: 'mp3' },
        options,
      ),
    );
    const audio = Buffer.from(await response.arrayBuffer());
    if (audio.length === 0 || !(response.headers.get('content-type') ?? 'audio/mpeg').startsWith('audio/'))
      throw new ProviderRefusal('The model returned no audio.');
    return { files: [{ data: audio, extension: 'mp3', contentType: 'audio/mpeg' }] };
  };
}

/** speech-to-text: /audio/transcriptions of the caller's audio (downloaded with the input guard); the text as .txt. */
export function createOpenAITranscriptionRunner(upstream: OpenAIUpstream): ProviderRunner {
  return async (request, model, context) => {
    if (!request.audio_url) throw new ProviderRefusal('speech-to-text needs audio_url');
    const { data } = await context.fetchInput(request.audio_url);
    const name = new URL(request.audio_url).pathname.split('/').pop() || 'audio';
    const file = await toFile(data, name);
    const transcript = (await upstream.call(model, context.signal, (options) =>
      upstream.client.audio.transcriptions.create(
        {
          model: model.upstream.model,
          file,
          response_format: 'verbose_json',
        },
        options,
      ),
    )) as { text: string; duration?: number };
    return {
      files: [
        {
          data: Buffer.from(transcript.text ?? '', 'utf8'),
          extension: 'txt',
          contentType: 'text/plain; charset=utf-8',
        },
      ],
      // Charged by the length the server measured, when it says.
      ...(transcript.duration !== undefined ? { usage: { input_seconds: transcript.duration } } : {}),
    };
  };
}
