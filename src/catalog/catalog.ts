// Loads and checks the catalog once at start: a bad entry stops the start, naming the model and the field.
import { providerNamed, providerSlugs } from '../providers/provider-list.ts';
import { type CatalogEntry, catalogEntrySchemaFor, type CatalogModel, type TranslatedField } from './catalog.schema.ts';
import { costBand } from './cost-band.ts';
import { catalogEntries } from './models.catalog.ts';

export type { CatalogModel } from './catalog.schema.ts';

/** An entry names one of the providers this build runs. */
const catalogEntrySchema = catalogEntrySchemaFor(providerSlugs);

export interface Catalog {
  models: CatalogModel[];
  get(id: string): CatalogModel | undefined;
}

export class CatalogError extends Error {
  override name = 'CatalogError';
}

/** Rules the schema alone cannot say: a model's prices and upstream values must cover exactly the options it offers. */
function coherenceProblems(entry: CatalogEntry): string[] {
  const { pricing, capabilities: caps, surcharges } = entry;
  const problems: string[] = [];
  if (pricing.kind === 'per_output_by_resolution' || pricing.kind === 'per_second_by_resolution') {
    const tiers = Object.keys(pricing.usd_by_resolution).sort().join(', ');
    const offered = [...(caps.resolutions ?? [])].sort().join(', ');
    if (tiers !== offered)
      problems.push(`pricing.usd_by_resolution: tiers [${tiers}] must match capabilities.resolutions [${offered}]`);
  }
  if ((pricing.kind === 'per_second' || pricing.kind === 'per_second_by_resolution') && !caps.durations) {
    problems.push('capabilities.durations: required by a per-second price');
  }
  if (Boolean(surcharges?.sound_usd_per_second) !== Boolean(caps.supports_sound)) {
    problems.push('surcharges.sound_usd_per_second: must be set exactly when capabilities.supports_sound is true');
  }
  for (const generateType of Object.keys(surcharges?.generate_type_usd ?? {})) {
    if (!caps.generate_types?.includes(generateType as never))
      problems.push(`surcharges.generate_type_usd.${generateType}: not in capabilities.generate_types`);
  }
  if (pricing.kind === 'per_minute_of_input' && !entry.measured_inputs)
    problems.push('measured_inputs: required by a per-minute-of-input price (the input it is priced on)');
  const lengthPriced = ['per_minute_of_input', 'per_second', 'per_second_by_resolution'].includes(pricing.kind);
  if (entry.measured_inputs && !lengthPriced)
    problems.push(`measured_inputs: a ${pricing.kind} price does not depend on an input's length`);
  if (entry.type === 'text-to-text' && pricing.kind !== 'per_token')
    problems.push('pricing.kind: text-to-text models are priced per token');
  return [...problems, ...translationProblems(entry), ...fallbackProblems(entry)];
}

/** Each fallback route runs the model's type on another provider, and translates every value the model offers. */
function fallbackProblems(entry: CatalogEntry): string[] {
  const seen = new Set<string>([entry.provider]);
  return (entry.fallbacks ?? []).flatMap((route, index) => {
    const path = `fallbacks.${index}`;
    const unsupported = providerNamed(route.provider)!.unsupportedRoute(entry.type);
    const problems = [
      ...(seen.has(route.provider) ? [`${path}.provider: ${route.provider} is already a route of this model`] : []),
      ...(unsupported ? [`${path}.provider: ${unsupported}`] : []),
      ...translationProblems({ ...entry, upstream: route.upstream }).map((problem) => `${path}.${problem}`),
    ];
    seen.add(route.provider);
    return problems;
  });
}

/** The capability listing the values a translated field may take. */
const offeredIn = {
  aspect_ratio: 'aspect_ratios',
  resolution: 'resolutions',
  generate_type: 'generate_types',
} as const satisfies Record<TranslatedField, keyof CatalogEntry['capabilities']>;

/**
 * A table of upstream values must cover exactly what the model offers: an offered value left out would reach the
 * upstream in our spelling, which it refuses.
 */
function tableProblems(path: string, table: object, entry: CatalogEntry, field: TranslatedField): string[] {
  const listing = offeredIn[field];
  const offered: readonly string[] | undefined = entry.capabilities[listing];
  if (!offered) return [`${path}: capabilities.${listing} is not set`];
  const untranslated = offered.filter((value) => !Object.hasOwn(table, value));
  const extra = Object.keys(table).filter((value) => !offered.includes(value));
  return [
    ...(untranslated.length ? [`${path}: no upstream value for ${untranslated.join(', ')}`] : []),
    ...(extra.length ? [`${path}: ${extra.join(', ')} not in capabilities.${listing}`] : []),
  ];
}

/** Rules for `upstream.values` and `upstream.sizes`: every value the model offers has its upstream spelling. */
function translationProblems(entry: CatalogEntry): string[] {
  const { values, sizes } = entry.upstream;
  const problems = Object.entries(values).flatMap(([field, table]) =>
    tableProblems(`upstream.values.${field}`, table, entry, field as TranslatedField),
  );
  if (!sizes) return problems;
  problems.push(...tableProblems('upstream.sizes.by_resolution', sizes.by_resolution, entry, 'resolution'));
  for (const [resolution, byRatio] of Object.entries(sizes.by_resolution))
    problems.push(...tableProblems(`upstream.sizes.by_resolution.${resolution}`, byRatio, entry, 'aspect_ratio'));
  if (!sizes.by_resolution[sizes.default.resolution]?.[sizes.default.aspect_ratio])
    problems.push('upstream.sizes.default: not a resolution and aspect ratio of upstream.sizes.by_resolution');
  if (values.resolution || values.aspect_ratio)
    problems.push('upstream.values: resolution and aspect_ratio are already sent as upstream.sizes');
  return problems;
}

export function loadCatalog(entries: unknown[] = catalogEntries): Catalog {
  const models: CatalogModel[] = [];
  const byId = new Map<string, CatalogModel>();
  entries.forEach((raw, index) => {
    const label =
      typeof (raw as { slug?: unknown })?.slug === 'string' ? `"${(raw as { slug: string }).slug}"` : `#${index + 1}`;
    const parsed = catalogEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CatalogError(`Catalog entry ${label}: ${issue.path.join('.') || '(entry)'}: ${issue.message}`);
    }
    const problems = coherenceProblems(parsed.data);
    if (problems.length > 0) throw new CatalogError(`Catalog entry ${label}: ${problems.join('; ')}`);
    const model: CatalogModel = {
      ...parsed.data,
      id: `${parsed.data.provider}/${parsed.data.slug}`,
      band: costBand(parsed.data),
    };
    if (byId.has(model.id)) throw new CatalogError(`Catalog entry ${label}: id ${model.id} is listed twice`);
    byId.set(model.id, model);
    models.push(model);
  });
  return { models, get: (id) => byId.get(id) };
}

/**
 * The model as route `route` runs it: 0 is its own provider, 1… its `fallbacks` in order. Same id and price; only the
 * provider and the upstream's names change. Undefined when the model has no such route (any more).
 */
export function modelOnRoute(model: CatalogModel, route: number): CatalogModel | undefined {
  if (route === 0) return model;
  const fallback = model.fallbacks?.[route - 1];
  return fallback && { ...model, provider: fallback.provider, upstream: fallback.upstream };
}

/** How the catalog shows a model's provider: its display name and slug. */
export const providerListing = (model: CatalogEntry) => {
  const { name, slug } = providerNamed(model.provider)!;
  return { name, slug };
};

/** Catalog order is the curated, stable order; filters only remove. */
export function filterModels(catalog: Catalog, filters: { type?: string; provider?: string }): CatalogModel[] {
  const provider = filters.provider?.toLowerCase();
  return catalog.models.filter((model) => {
    const listing = providerListing(model);
    const providerMatches = !provider || listing.name.toLowerCase() === provider || listing.slug === provider;
    return (!filters.type || model.type === filters.type) && providerMatches;
  });
}
