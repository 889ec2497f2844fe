// One task (GET /generations/{id}), kept current by the account's event stream, and polled every few seconds while
// it runs in case the stream is down.
import { useSession } from '../api/session';

const pollWhileRunningMs = 5_000;

export function useTask(id: string) {
  return useSession().api.useQuery('get', '/generations/{id}', taskParams(id), {
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === 'queued' || status === 'processing' ? pollWhileRunningMs : false;
    },
  });
}

/** The task's query parameters, which its key is made of (to refresh it). */
export const taskParams = (id: string) => ({ params: { path: { id } } });
