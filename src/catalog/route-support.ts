// Which generation types a provider's adapter runs, for checking a catalog's fallback routes at start (the registry
// builds the adapters; it cannot be imported here without a cycle). fal and Replicate queue jobs of any media type
// under the upstream's own input names; the OpenAI-compatible adapter speaks one endpoint per type.
import type { CatalogEntry, ProviderSlug } from './catalog.schema.ts';

type GenerationType = CatalogEntry['type'];

const openAITypes: readonly GenerationType[] = [
  'text-to-text',
  'text-to-image',
  'text-to-audio',
  'speech-to-text',
  'text-to-video',
];

/** Why a route on `provider` cannot serve a model of `type`, or undefined when it can. */
export function unsupportedRoute(provider: ProviderSlug, type: GenerationType): string | undefined {
  switch (provider) {
    // A local engine runs on this server: it has no outage a second route would get around.
    case 'local':
      return 'a local engine is not a fallback route';
    case 'openai':
      return openAITypes.includes(type) ? undefined : `the openai adapter does not run ${type}`;
    case 'fal':
    case 'replicate':
      return type === 'text-to-text' ? `the ${provider} adapter does not run text-to-text` : undefined;
  }
}
