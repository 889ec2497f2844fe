// fal's queue: jobs of any media type under fal's own input names, their end announced by signed webhooks.
import type { ProviderDescriptor } from '../provider-descriptor.ts';
import { createFalJobs } from './queue.ts';

export const falProvider: ProviderDescriptor<'fal'> = {
  slug: 'fal',
  name: 'fal',
  configured: (config) => Boolean(config.fal.key),
  runs: () => true,
  unsupportedRoute: (type) => (type === 'text-to-text' ? 'the fal adapter does not run text-to-text' : undefined),
  concurrency: (config) => config.fal.concurrency,
  sendsCallbacks: true,
  connect(config, outputs) {
    const jobs = createFalJobs(config.fal, outputs);
    return { for: () => ({ kind: 'jobs', jobs }), callbacks: jobs };
  },
};
