// The task's events (GET /generations/{id}/events): its history at once, then each new one until it ends.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { followEvents } from '../../api/event-stream';
import { useSession } from '../../api/session';
import { taskParams } from '../../tasks/use-task';
import { type TimelineEntry, timelineEntry } from './timeline';

export function useTaskTimeline(id: string): { entries: TimelineEntry[]; failed: boolean } {
  const { client, api } = useSession();
  const queryClient = useQueryClient();
  const [entries, setEntries] = useState<TimelineEntry[]>([]);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const aborter = new AbortController();
    setEntries([]);
    setFailed(false);
    const open = async (lastEventId: string | undefined, signal: AbortSignal) => {
      const headers = lastEventId ? { 'Last-Event-ID': lastEventId } : undefined;
      const params = { path: { id } };
      return (await client.GET('/generations/{id}/events', { params, parseAs: 'stream', headers, signal })).response;
    };
    const onEvent = (message: Parameters<typeof timelineEntry>[0]) => {
      setEntries((shown) => [...shown, timelineEntry(message, shown.length)]);
      // The task's own record moves with its events (status, progress, outputs).
      const { queryKey } = api.queryOptions('get', '/generations/{id}', taskParams(id));
      void queryClient.invalidateQueries({ queryKey });
    };
    followEvents(open, { onEvent, signal: aborter.signal }).catch(() => !aborter.signal.aborted && setFailed(true));
    return () => aborter.abort();
  }, [client, api, queryClient, id]);

  return { entries, failed };
}
