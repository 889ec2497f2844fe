// Replicate's predictions: jobs of any media type under the model's own input names, their end announced by signed
// webhooks.
import type { ProviderDescriptor } from '../provider-descriptor.ts';
import { createReplicateJobs } from './predictions.ts';

export const replicateProvider: ProviderDescriptor<'replicate'> = {
  slug: 'replicate',
  name: 'Replicate',
  configured: (config) => Boolean(config.replicate.apiToken),
  runs: () => true,
  unsupportedRoute: (type) => (type === 'text-to-text' ? 'the replicate adapter does not run text-to-text' : undefined),
  concurrency: (config) => config.replicate.concurrency,
  sendsCallbacks: true,
  connect(config, outputs) {
    const jobs = createReplicateJobs(config.replicate, outputs);
    return { for: () => ({ kind: 'jobs', jobs }), callbacks: jobs };
  },
};
