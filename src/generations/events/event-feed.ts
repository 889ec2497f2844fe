// One LISTEN connection per api process for the task event streams: the triggers on `tasks` notify
// `task_events` at commit with "<account> <task>", and the feed wakes that account's open streams, which re-read
// what they have not sent (a notification carries no event, so a missed or merged one loses nothing).
import pg from 'pg';
import { ServiceUnavailableError } from '../../domain/errors.ts';

export const taskEventsChannel = 'task_events';

/** Called with the task that has new events (any task, after the connection was lost and regained). */
export type Wake = (taskId: string | undefined) => void;

export interface TaskEventFeed {
  /** Resolves once the process listens (subscribe first, then read the backlog); the result unsubscribes. */
  subscribe(accountId: string, wake: Wake): Promise<() => void>;
}

// A lost connection is reopened after this; the streams re-read meanwhile, so they only miss the speed.
const reconnectDelayMs = 1_000;
// A database that accepts the connection but never answers must not hold a stream's request: 503 after this.
const connectTimeoutMs = 5_000;

export const feedUnavailableMessage = 'The event stream could not reach the database; nothing was sent. Retry shortly.';

/** Connects on the first subscriber and closes after the last, so a process without streams holds no connection. */
export function createTaskEventFeed(
  databaseUrl: string | undefined,
  onError: (error: unknown) => void = () => {},
): TaskEventFeed {
  const subscribers = new Map<string, Set<Wake>>();
  let listening: Promise<pg.Client> | undefined;
  let retry: NodeJS.Timeout | undefined;

  const wakeAll = () => {
    for (const wakes of subscribers.values()) for (const wake of wakes) wake(undefined);
  };

  const onNotification = (message: pg.Notification) => {
    const [accountId, taskId] = (message.payload ?? '').split(' ');
    for (const wake of subscribers.get(accountId ?? '') ?? []) wake(taskId);
  };

  const connect = async (): Promise<pg.Client> => {
    if (!databaseUrl) throw new Error('no DATABASE_URL');
    const client = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: connectTimeoutMs,
    });
    client.on('notification', onNotification);
    client.on('error', (error) => lost(client, error));
    client.on('end', () => lost(client, undefined));
    await client.connect();
    await client.query(`LISTEN ${taskEventsChannel}`);
    return client;
  };

  const open = () => {
    listening ??= connect().catch((error: unknown) => {
      listening = undefined;
      // The driver's message names the database's host, port and user: the caller gets a constant one, the log the cause.
      throw Object.assign(new ServiceUnavailableError(feedUnavailableMessage), { cause: error });
    });
    return listening;
  };

  /** The connection dropped: wake every stream to re-read, and listen again while any is open. */
  function lost(client: pg.Client, error: unknown) {
    void listening?.then(
      (current) => {
        if (current !== client) return;
        listening = undefined;
        if (error) onError(error);
        wakeAll();
        if (subscribers.size === 0 || retry) return;
        retry = setTimeout(() => {
          retry = undefined;
          if (subscribers.size > 0) open().then(wakeAll, onError);
        }, reconnectDelayMs);
      },
      () => undefined,
    );
  }

  const close = () => {
    clearTimeout(retry);
    retry = undefined;
    const closing = listening;
    listening = undefined;
    void closing?.then((client) => client.end()).catch(() => undefined);
  };

  return {
    async subscribe(accountId, wake) {
      const wakes = subscribers.get(accountId) ?? new Set<Wake>();
      subscribers.set(accountId, wakes.add(wake));
      const unsubscribe = () => {
        wakes.delete(wake);
        if (wakes.size === 0 && subscribers.get(accountId) === wakes) subscribers.delete(accountId);
        if (subscribers.size === 0) close();
      };
      try {
        await open();
      } catch (error) {
        unsubscribe();
        throw error;
      }
      return unsubscribe;
    },
  };
}
