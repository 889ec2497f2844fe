// The provider list is the one place providers are registered: a provider folder whose descriptor is missing from it
// would be a provider nothing dispatches to.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { providerList, providerNamed } from '../../src/providers/provider-list.ts';

const providersDir = join(import.meta.dirname, '..', '..', 'src', 'providers');

describe('provider list', () => {
  it('registers one descriptor per provider folder, under the folder name', async () => {
    const folders = readdirSync(providersDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const described = await Promise.all(
      folders.map(async (folder) => {
        const module = (await import(join(providersDir, folder, `${folder}.provider.ts`))) as Record<string, unknown>;
        return Object.values(module);
      }),
    );
    expect(described.flat()).toEqual(expect.arrayContaining([...providerList]));
    expect(providerList.map((provider) => provider.slug).sort()).toEqual(folders.sort());
  });

  it('knows the provider of every catalog model and fallback route, and nothing by a prototype name', () => {
    for (const model of loadCatalog().models) {
      expect(providerNamed(model.provider)).toBeDefined();
      for (const route of model.fallbacks ?? []) expect(providerNamed(route.provider)).toBeDefined();
    }
    expect(providerNamed('constructor')).toBeUndefined();
    expect(providerNamed('__proto__')).toBeUndefined();
  });
});
