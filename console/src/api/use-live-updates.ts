// The account's event stream (GET /events) keeps every page current: a task's event refreshes the lists, the task,
// the balance, the usage, the keys' budgets and the webhook deliveries it changes. Answers whether the stream is
// open, for the "Live" mark.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { followEvents } from './event-stream';
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
        for (const queryKey of [['generations'], ['task'], ['balance'], ['usage'], ['keys'], ['webhook-deliveries']])
          void queryClient.invalidateQueries({ queryKey });
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
