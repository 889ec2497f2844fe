// The task the playground started: its progress live, then its outputs, with a link to its page.
import { Link } from 'wouter';
import { TaskOutputs } from '../../tasks/TaskOutputs';
import { statusText } from '../../tasks/TaskSummary';
import { useTask } from '../../tasks/use-task';
import { ErrorLine } from '../../ui/ErrorLine';
import { Section } from '../../ui/Section';

export function PlaygroundResult({ id }: { id: string }) {
  const task = useTask(id);
  return (
    <Section title="Result">
      <ErrorLine error={task.error} />
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
    </Section>
  );
}
