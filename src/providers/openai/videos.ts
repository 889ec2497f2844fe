// text-to-video through an OpenAI-compatible /videos endpoint (Sora). OpenAI's webhooks are set per project, not
// per request, so these jobs are polled; a job nobody will collect is deleted (the API has no cancel).
import type { Video, VideoSeconds } from 'openai/resources/videos';
import { readLimited } from '../fetch-input.ts';
import { ProviderRefusal, type UpstreamJobs } from '../types.ts';
import type { OpenAIUpstream } from './client.ts';

// The sizes Sora renders, by our aspect ratio.
const sizes = { '16:9': '1280x720', '9:16': '720x1280' } as const;

export function createOpenAIVideoJobs(upstream: OpenAIUpstream): UpstreamJobs {
  return {
    async submit(request, model, { signal }) {
      if (!request.prompt) throw new ProviderRefusal('text-to-video needs a prompt');
      const video: Video = await upstream.call(model, signal, (options) =>
        upstream.client.videos.create(
          {
            model: model.upstream.model,
            prompt: request.prompt!,
            seconds: String(request.duration ?? 4) as VideoSeconds,
            size: sizes[request.aspect_ratio === '9:16' ? '9:16' : '16:9'],
          },
          options,
        ),
      );
      return video.id;
    },

    async status(model, id, signal) {
      const video = await upstream.call(model, signal, (options) => upstream.client.videos.retrieve(id, options));
      if (video.status === 'completed') return { state: 'succeeded' };
      if (video.status === 'failed')
        return {
          state: 'failed',
          reason: `The model failed: ${(video.error?.message ?? 'no reason given').slice(0, 300)}`,
        };
      return { state: 'pending' };
    },

    async collect(model, id, signal) {
      const response = await upstream.call(model, signal, (options) =>
        upstream.client.videos.downloadContent(id, { variant: 'video' }, options),
      );
      const data = await readLimited(
        response as never,
        upstream.maxOutputBytes,
        () => new ProviderRefusal(`The video is larger than ${upstream.maxOutputBytes} bytes.`),
      );
      if (data.length === 0) throw new ProviderRefusal('The model returned no video.');
      return { files: [{ data, extension: 'mp4', contentType: 'video/mp4' }] };
    },

    async cancel(model, id) {
      await upstream.call(model, AbortSignal.timeout(30_000), (options) => upstream.client.videos.delete(id, options));
    },

    // No per-request callbacks: always polled.
    verifyCallback: async () => undefined,
  };
}
