// An OpenAI-compatible server (OpenAI itself, or vLLM, Ollama, LocalAI…): one endpoint per generation type, answered
// in one call, or (video) a job to poll.
import type { CatalogEntry } from '../../catalog/catalog.schema.ts';
import type { ProviderDescriptor } from '../provider-descriptor.ts';
import type { ProviderRunner, UpstreamJobs } from '../types.ts';
import { createOpenAIChatRunner } from './chat.ts';
import { createOpenAIUpstream, type OpenAIUpstream } from './client.ts';
import { createOpenAIImageRunner, createOpenAISpeechRunner, createOpenAITranscriptionRunner } from './media.ts';
import { createOpenAIVideoJobs } from './videos.ts';

type GenerationType = CatalogEntry['type'];

const runners: Partial<Record<GenerationType, (upstream: OpenAIUpstream) => ProviderRunner>> = {
  'text-to-text': createOpenAIChatRunner,
  'text-to-image': createOpenAIImageRunner,
  'text-to-audio': createOpenAISpeechRunner,
  'speech-to-text': createOpenAITranscriptionRunner,
};
const jobs: Partial<Record<GenerationType, (upstream: OpenAIUpstream) => UpstreamJobs>> = {
  'text-to-video': createOpenAIVideoJobs,
};
const hasEndpoint = (type: GenerationType) => type in runners || type in jobs;

export const openAIProvider: ProviderDescriptor<'openai'> = {
  slug: 'openai',
  name: 'OpenAI-compatible',
  configured: (config) => Boolean(config.openai.baseUrl || config.openai.apiKey),
  runs: (model) => hasEndpoint(model.type),
  unsupportedRoute: (type) => (hasEndpoint(type) ? undefined : `the openai adapter does not run ${type}`),
  concurrency: (config) => config.openai.concurrency,
  sendsCallbacks: false,
  connect(config, outputs) {
    const upstream = createOpenAIUpstream(config.openai, outputs);
    return {
      for(model) {
        const runner = runners[model.type];
        return runner ? { kind: 'runner', run: runner(upstream) } : { kind: 'jobs', jobs: jobs[model.type]!(upstream) };
      },
    };
  },
};
