// The task the playground started: its progress live, then its outputs, with a link to its page.
import { Link } from 'wouter';
import { TaskOutputs } from '../../tasks/TaskOutputs';
import { statusText } from '../../tasks/TaskSummary';
import { useTask } from '../../tasks/use-task';

export function PlaygroundResult({ id }: { id: string }) {
  const task = useTask(id);
  return (
    <section className="card" aria-labelledby="result-heading">
      <h2 id="result-heading">Result</h2>
      {task.isError && <p className="error">{task.error.message}</p>}
      {task.data && (
        <>
          <p className={`status status-${task.data.status}`} role="status">
            {statusText(task.data)}
          </p>
          <TaskOutputs task={task.data} />
          <p>
            <Link href={`/generations/${id}`}>Open the task</Link>
          </p>
        </>
      )}
    </section>
  );
}
