// text-to-video through an OpenAI-compatible /videos endpoint (Sora). OpenAI's webhooks are set per project, not
// per request, so these jobs are polled; a job nobody will collect is deleted (the API has no cancel).
import { join } from 'node:path';
import type { Video, VideoSeconds } from 'openai/resources/videos';
import { writeLimited } from '../../net/limited-file.ts';
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

    async collect(model, id, { signal, outputDir }) {
      const response = await upstream.call(model, signal, (options) =>
        upstream.client.videos.downloadContent(id, { variant: 'video' }, options),
      );
      const path = join(outputDir, 'video.mp4');
      const size = await writeLimited(
        (response as Response).body ?? [],
        path,
        upstream.maxOutputBytes,
        () => new ProviderRefusal(`The video is larger than ${upstream.maxOutputBytes} bytes.`),
      );
      if (size === 0) throw new ProviderRefusal('The model returned no video.');
      return { files: [{ path, extension: 'mp4', contentType: 'video/mp4' }] };
    },

    async cancel(model, id) {
      await upstream.call(model, AbortSignal.timeout(30_000), (options) => upstream.client.videos.delete(id, options));
    },

    // No per-request callbacks: always polled.
    verifyCallback: async () => undefined,
  };
}
