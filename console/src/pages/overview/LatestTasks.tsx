// The ten latest tasks (GET /generations?limit=10), each with its status, model, cost, time and output preview.
import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../api/client';
import { useSession } from '../../api/session';
import { formatTime, formatUsd } from '../../format';
import { OutputPreview } from './OutputPreview';

function useLatestTasks() {
  const { client } = useSession();
  return useQuery({
    queryKey: ['generations', 'latest'],
    queryFn: async () => {
      const answer = await client.GET('/generations', { params: { query: { limit: 10 } } });
      if (answer.error) throw new Error(errorMessage(answer.error));
      return answer.data.generations;
    },
  });
}

export function LatestTasks() {
  const tasks = useLatestTasks();
  return (
    <section className="card" aria-labelledby="latest-heading">
      <h2 id="latest-heading">Latest tasks</h2>
      {tasks.isPending && <p className="muted">Loading…</p>}
      {tasks.isError && <p className="error">{tasks.error.message}</p>}
      {tasks.data?.length === 0 && <p className="muted">No tasks yet: the Playground runs your first one.</p>}
      <ul className="task-list">
        {tasks.data?.map((task) => (
          <li key={task.id} className="task">
            <div className="task-preview">
              <OutputPreview task={task} />
            </div>
            <div className="task-facts">
              <p className="task-model">{task.model}</p>
              <p className="muted">
                <span className={`status status-${task.status}`}>{task.status}</span>
                {task.cost !== undefined && ` · ${formatUsd(task.cost)}`}
                {task.created_at && ` · ${formatTime(task.created_at)}`}
              </p>
              {task.prompt && <p className="task-prompt">{task.prompt}</p>}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
