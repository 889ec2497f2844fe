// The model catalog (GET /models), read once a session: it changes only when the gateway is redeployed.
import type { components } from '../api/schema';
import { useSession } from '../api/session';

export type Model = components['schemas']['Model'];
export type GenerationType = components['schemas']['GenerationType'];

export function useModels() {
  return useSession().api.useQuery('get', '/models', undefined, {
    select: (catalog) => catalog.models,
    staleTime: 'static',
  });
}

/** The generation types the catalog offers, in its order. */
export const typesOf = (models: Model[]): GenerationType[] => [
  ...new Set(models.map((model) => model.type as GenerationType)),
];
