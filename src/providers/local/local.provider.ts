// The engines that run on this server (sharp, ffmpeg, espeak-ng), found by the catalog's `upstream.model`.
import type { ProviderDescriptor } from '../provider-descriptor.ts';
import { localEngines } from './index.ts';

export const localProvider: ProviderDescriptor<'local'> = {
  slug: 'local',
  name: 'Local',
  configured: () => true,
  runs: (model) => model.upstream.model in localEngines,
  // A local engine runs on this server: it has no outage a second route would get around.
  unsupportedRoute: () => 'a local engine is not a fallback route',
  concurrency: (config) => config.local.concurrency,
  sendsCallbacks: false,
  connect: () => ({ for: (model) => ({ kind: 'runner', run: localEngines[model.upstream.model]! }) }),
};
