// The signed-in key itself (GET /keys/current, any scope): its scopes and policy decide what the pages enable.
import { useSession } from './session';

export function useCurrentKey() {
  return useSession().api.useQuery('get', '/keys/current');
}
