// The providers this build runs, registered in one list: the catalog's provider names, admission's checks, the
// registry, the worker's task queues and the CLI all read it. Adding a provider is adding its descriptor here.
import { falProvider } from './fal/fal.provider.ts';
import { localProvider } from './local/local.provider.ts';
import { openAIProvider } from './openai/openai.provider.ts';
import type { ProviderDescriptor } from './provider-descriptor.ts';
import { replicateProvider } from './replicate/replicate.provider.ts';

/** In the order the catalog's schema, `genctl` and the worker's task queues name them. */
export const providerList = [falProvider, replicateProvider, openAIProvider, localProvider] as const;

export type ProviderSlug = (typeof providerList)[number]['slug'];
export const providerSlugs = providerList.map((provider) => provider.slug) as [ProviderSlug, ...ProviderSlug[]];

// A Map: a provider name may come from a callback's path, and `constructor` or `__proto__` must find nothing.
const bySlug = new Map<string, ProviderDescriptor>(providerList.map((provider) => [provider.slug, provider]));

/** The provider of that slug, or undefined for a name this build does not run. */
export const providerNamed = (slug: string): ProviderDescriptor | undefined => bySlug.get(slug);
