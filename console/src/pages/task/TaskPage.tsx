// One task: its status and progress, what was asked, its outputs (previewed, downloadable), its cost and what happened
// to the money, its event timeline, and Cancel while it has not ended.
import { Link, useParams } from 'wouter';
import { formatMoment, formatTime } from '../../format';
import { TaskOutputs } from '../../tasks/TaskOutputs';
import { isRunning, statusText, type Task } from '../../tasks/TaskSummary';
import { useTask } from '../../tasks/use-task';
import { CancelTask } from './CancelTask';
import { TaskMoney } from './TaskMoney';
import { useTaskTimeline } from './use-task-timeline';
import { ErrorLine } from '../../ui/ErrorLine';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';
import './task-page.css';

function Facts({ task }: { task: Task }) {
  const facts: [string, string | number | undefined][] = [
    ['Model', task.model],
    ['Type', task.type],
    ['Prompt', task.prompt],
    ['Aspect ratio', task.aspect_ratio],
    ['Resolution', task.resolution],
    ['Duration', task.duration !== undefined ? `${task.duration} s` : undefined],
    ['Outputs asked', task.num_outputs],
    ['Served by', task.served_by],
    ['Created', formatTime(task.created_at)],
    ['Started', formatTime(task.started_at)],
    ['Ended', formatTime(task.completed_at)],
    ['Outputs kept until', formatTime(task.outputs_expire_at)],
  ];
  return (
    <dl className="facts">
      {facts
        .filter(([, value]) => value !== undefined && value !== '')
        .map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

function Timeline({ id }: { id: string }) {
  const { entries, failed } = useTaskTimeline(id);
  return (
    <Section title="Events">
      {failed && <ErrorLine error="The task's events could not be read." />}
      <ol className="timeline">
        {entries.map((entry) => (
          <li key={entry.id}>
            <span className={`status status-${entry.event}`}>{entry.event}</span>
            {entry.at && <time dateTime={entry.at}>{formatMoment(entry.at)}</time>}
            {entry.detail && <span className="muted">{entry.detail}</span>}
          </li>
        ))}
      </ol>
    </Section>
  );
}

export function TaskPage() {
  const { id } = useParams<{ id: string }>();
  const task = useTask(id);
  return (
    <>
      <p>
        <Link href="/generations">← Generations</Link>
      </p>
      <h1>{task.data?.model ?? 'Task'}</h1>
      <p className="mono muted">{id}</p>
      <QueryStatus query={task} />
      {task.data && (
        <>
          <p className={`status status-${task.data.status}`} role="status">
            {statusText(task.data)}
          </p>
          {isRunning(task.data) && <CancelTask id={id} />}
          <div className="task-page">
            <Section title="Outputs">
              <TaskOutputs task={task.data} />
            </Section>
            <div>
              <Section title="Request">
                <Facts task={task.data} />
              </Section>
              <TaskMoney task={task.data} />
            </div>
          </div>
          <Timeline id={id} />
        </>
      )}
    </>
  );
}
