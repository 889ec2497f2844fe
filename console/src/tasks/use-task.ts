// One task (GET /generations/{id}), kept current by the account's event stream, and polled every few seconds while
// it runs in case the stream is down.
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '../api/answer';
import { useSession } from '../api/session';

const pollWhileRunningMs = 5_000;

export function useTask(id: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['task', id],
    queryFn: async () => dataOf(await client.GET('/generations/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === 'queued' || status === 'processing' ? pollWhileRunningMs : false;
    },
  });
}
