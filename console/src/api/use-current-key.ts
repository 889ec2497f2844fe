// The signed-in key itself (GET /keys/current, any scope): its scopes and policy decide what the pages enable.
import { useQuery } from '@tanstack/react-query';
import { dataOf } from './answer';
import { useSession } from './session';

export function useCurrentKey() {
  const { client } = useSession();
  return useQuery({ queryKey: ['keys', 'current'], queryFn: async () => dataOf(await client.GET('/keys/current')) });
}
