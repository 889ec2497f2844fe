// The task history (GET /generations), newest first, page by page, filtered by status, type and model, refreshed live
// by the account's event stream (the shell follows it); each task with its output's preview, linked to its page.
import { useInfiniteQuery } from '@tanstack/react-query';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { TaskSummary } from '../../tasks/TaskSummary';
import { useUrlFilters } from '../../ui/use-url-filters';
import { type Filters, filtersFrom, historyQuery } from './filters';
import { HistoryFilters } from './HistoryFilters';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';

const pageSize = 20;

function useHistory(filters: Filters) {
  const { client, api } = useSession();
  const query = { ...historyQuery(filters), limit: pageSize };
  return useInfiniteQuery({
    queryKey: api.queryOptions('get', '/generations', { params: { query } }).queryKey,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) =>
      dataOf(await client.GET('/generations', { params: { query: { ...query, cursor: pageParam } }, signal })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
}

export function Generations() {
  const [filters, setFilters] = useUrlFilters(filtersFrom);
  const history = useHistory(filters);
  const tasks = history.data?.pages.flatMap((page) => page.generations);
  const filtered = Object.values(filters).some(Boolean);

  return (
    <>
      <h1>Generations</h1>
      <HistoryFilters filters={filters} onChange={setFilters} />
      <Section title="Tasks" titleHidden>
        <QueryStatus query={history} />
        {tasks?.length === 0 && (
          <p className="muted">{filtered ? 'No task matches these filters.' : 'No tasks yet.'}</p>
        )}
        <ul className="task-list">
          {tasks?.map((task) => (
            <TaskSummary key={task.id} task={task} />
          ))}
        </ul>
        {history.hasNextPage && (
          <button
            type="button"
            className="secondary"
            disabled={history.isFetchingNextPage}
            onClick={() => void history.fetchNextPage()}
          >
            {history.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        )}
      </Section>
    </>
  );
}
