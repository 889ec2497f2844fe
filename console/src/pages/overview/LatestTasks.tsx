// The ten latest tasks (GET /generations?limit=10), each with its status, model, cost, time and output preview.
import { Link } from 'wouter';
import { useSession } from '../../api/session';
import { TaskSummary } from '../../tasks/TaskSummary';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';

function useLatestTasks() {
  return useSession().api.useQuery(
    'get',
    '/generations',
    { params: { query: { limit: 10 } } },
    { select: (page) => page.generations },
  );
}

export function LatestTasks() {
  const tasks = useLatestTasks();
  return (
    <Section title="Latest tasks">
      <QueryStatus query={tasks} />
      {tasks.data?.length === 0 && (
        <p className="muted">
          No tasks yet: the <Link href="/playground">Playground</Link> runs your first one.
        </p>
      )}
      <ul className="task-list">
        {tasks.data?.map((task) => (
          <TaskSummary key={task.id} task={task} />
        ))}
      </ul>
      {!!tasks.data?.length && <Link href="/generations">All generations</Link>}
    </Section>
  );
}
