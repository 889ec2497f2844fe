import type { Catalog, CatalogModel } from '../src/catalog/catalog.ts';
import { refusal } from './refusal.ts';

/** The task's model; one taken out of the catalog since admission fails the task instead of retrying. */
export function modelOf(catalog: Catalog, id: string): CatalogModel {
  const model = catalog.get(id);
  if (!model) throw refusal(`model ${id} is no longer in the catalog`);
  return model;
}
