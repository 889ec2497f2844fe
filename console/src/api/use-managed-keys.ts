// The keys the signed-in key manages (GET /keys): asked for only when it has the `keys` scope (else the API says 403).
import { useQuery } from '@tanstack/react-query';
import { dataOf } from './answer';
import { useSession } from './session';

export function useManagedKeys(enabled = true) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['keys', 'list'],
    queryFn: async () => dataOf(await client.GET('/keys')).keys,
    retry: false,
    enabled,
  });
}
