// The account's webhook messages (GET /webhooks/deliveries), newest first, each with every attempt to every target
// and its answer, and Redeliver (the same webhook-id and body, on a fresh schedule); those of one task only with the
// task filter, kept in the URL (?task_id=…).
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { dataOf } from '../../api/answer';
import { invalidatePath } from '../../api/query-keys';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { formatMoment } from '../../format';
import { ErrorLine } from '../../ui/ErrorLine';
import { QueryStatus } from '../../ui/Loading';
import { Field } from '../../ui/Field';
import { Section } from '../../ui/Section';
import { useUrlFilters } from '../../ui/use-url-filters';

type Message = components['schemas']['WebhookMessage'];
type Attempt = Message['targets'][number]['attempts'][number];

type LogFilters = { task_id?: string };

const logFiltersFrom = (search: URLSearchParams): LogFilters => ({ task_id: search.get('task_id') || undefined });

function useDeliveryLog(filters: LogFilters) {
  const { client, api } = useSession();
  const query = { limit: 20, ...filters };
  return useInfiniteQuery({
    queryKey: api.queryOptions('get', '/webhooks/deliveries', { params: { query } }).queryKey,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) =>
      dataOf(await client.GET('/webhooks/deliveries', { params: { query: { ...query, cursor: pageParam } }, signal })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
}

const outcome = (attempt: Attempt) =>
  attempt.status_code !== null ? `HTTP ${attempt.status_code}` : (attempt.error ?? 'no answer');

function Redeliver({ id }: { id: string }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST('/webhooks/deliveries/{id}/redeliver', { params: { path: { id } } })),
    onSettled: () => setTimeout(() => void invalidatePath(queryClient, '/webhooks/deliveries'), 1_000),
  });
  return (
    <span className="actions">
      <button type="button" className="secondary" disabled={redeliver.isPending} onClick={() => redeliver.mutate()}>
        Redeliver
      </button>
      <span role="status" className="muted">
        {redeliver.isSuccess && 'Sent again.'}
      </span>
      <ErrorLine error={redeliver.error} inline />
    </span>
  );
}

function MessageItem({ message }: { message: Message }) {
  return (
    <li className="message" aria-label={`${message.event} ${message.id}`}>
      <div className="message-head">
        <h3>{message.event}</h3>
        <span className="mono muted">{message.id}</span>
        {message.task_id && <Link href={`/generations/${message.task_id}`}>{message.task_id}</Link>}
        <span className="muted">{formatMoment(message.created_at)}</span>
      </div>
      {message.targets.length === 0 && <p className="muted">Not sent yet.</p>}
      {message.targets.map((target) => (
        <div key={target.url} className="target">
          <p>
            <span className={`badge state-${target.state}`}>{target.state}</span>{' '}
            <span className="mono">{target.url}</span>
          </p>
          <ol className="attempts">
            {target.attempts.map((attempt) => (
              <li key={attempt.attempt}>
                #{attempt.attempt} · {formatMoment(attempt.at)} · {outcome(attempt)}
                {attempt.duration_ms !== null && ` · ${attempt.duration_ms} ms`}
                {attempt.next_attempt_at && ` · next ${formatMoment(attempt.next_attempt_at)}`}
              </li>
            ))}
          </ol>
        </div>
      ))}
      <Redeliver id={message.id} />
    </li>
  );
}

/** A task's id to see its messages only: applied on Enter or "Filter", emptied to see them all. */
function TaskFilter({ taskId, onChange }: { taskId: string | undefined; onChange: (taskId?: string) => void }) {
  const [draft, setDraft] = useState(taskId ?? '');
  return (
    <form
      className="filters"
      aria-label="Deliveries filter"
      onSubmit={(event) => {
        event.preventDefault();
        onChange(draft.trim() || undefined);
      }}
    >
      <Field label="Task" className="task-filter">
        {(control) => (
          <input
            {...control}
            type="search"
            spellCheck={false}
            pattern="gen_[0-9A-Za-z]{22}"
            title="A task's id: gen_ and 22 letters and digits"
            placeholder="Any task"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
        )}
      </Field>
      <button type="submit" className="secondary">
        Filter
      </button>
    </form>
  );
}

export function DeliveryLog() {
  const [filters, setFilters] = useUrlFilters(logFiltersFrom);
  const log = useDeliveryLog(filters);
  const messages = log.data?.pages.flatMap((page) => page.messages);
  return (
    <Section title="Deliveries">
      {/* Keyed by the URL's filter: Back shows the task it names. */}
      <TaskFilter
        key={filters.task_id ?? ''}
        taskId={filters.task_id}
        onChange={(task_id) => setFilters({ task_id })}
      />
      <QueryStatus query={log} />
      {messages?.length === 0 && (
        <p className="muted">{filters.task_id ? 'No webhook message about this task.' : 'No webhook messages yet.'}</p>
      )}
      <ul className="message-list">
        {messages?.map((message) => (
          <MessageItem key={message.id} message={message} />
        ))}
      </ul>
      {log.hasNextPage && (
        <button
          type="button"
          className="secondary"
          disabled={log.isFetchingNextPage}
          onClick={() => void log.fetchNextPage()}
        >
          {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </Section>
  );
}
