// The model catalog (GET /models), read once a session: it changes only when the gateway is redeployed.
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '../api/answer';
import type { components } from '../api/schema';
import { useSession } from '../api/session';

export type Model = components['schemas']['Model'];
export type GenerationType = components['schemas']['GenerationType'];

export function useModels() {
  const { client } = useSession();
  return useQuery({
    queryKey: ['models'],
    queryFn: async () => dataOf(await client.GET('/models')).models,
    staleTime: Infinity,
  });
}

/** The generation types the catalog offers, in its order. */
export const typesOf = (models: Model[]): GenerationType[] => [
  ...new Set(models.map((model) => model.type as GenerationType)),
];
