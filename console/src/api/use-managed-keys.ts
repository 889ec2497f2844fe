// The keys the signed-in key manages (GET /keys): asked for only when it has the `keys` scope (else the API says 403).
import { useSession } from './session';

export function useManagedKeys(enabled = true) {
  return useSession().api.useQuery('get', '/keys', undefined, { select: (data) => data.keys, retry: false, enabled });
}
