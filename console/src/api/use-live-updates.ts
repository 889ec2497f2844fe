// The account's event stream (GET /events) keeps every page current: a task's event refreshes every query of the API
// (the lists, the task, the balance, the usage, the keys' budgets, the webhook deliveries, and those of pages added
// later), their keys being their paths. Answers whether the stream is open, for the "Live" mark.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { followEvents } from './event-stream';
import { invalidateApi } from './query-keys';
import { useSession } from './session';

const refreshDelayMs = 300;

export function useLiveUpdates(): boolean {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);

  useEffect(() => {
    const aborter = new AbortController();
    let refresh: ReturnType<typeof setTimeout> | undefined;
    // A burst of events (a batch of tasks finishing) refreshes once.
    const refreshSoon = () => {
      refresh ??= setTimeout(() => {
        refresh = undefined;
        void invalidateApi(queryClient);
      }, refreshDelayMs);
    };
    const open = async (lastEventId: string | undefined, signal: AbortSignal) => {
      const headers = lastEventId ? { 'Last-Event-ID': lastEventId } : undefined;
      return (await client.GET('/events', { parseAs: 'stream', headers, signal })).response;
    };
    followEvents(open, { onEvent: refreshSoon, onConnected: setConnected, signal: aborter.signal }).catch(() =>
      setConnected(false),
    );
    return () => {
      aborter.abort();
      clearTimeout(refresh);
    };
  }, [client, queryClient]);

  return connected;
}
