// One task as a list shows it: its output's preview, model, status, cost, time and prompt, linked to its page.
import { Link } from 'wouter';
import type { components } from '../api/schema';
import { formatTime, formatUsd } from '../format';
import { OutputPreview } from './OutputPreview';
import './tasks.css';

export type Task = components['schemas']['GenerationStatusResponse'];

export function TaskSummary({ task }: { task: Task }) {
  return (
    <li className="task">
      <div className="task-preview">
        <OutputPreview task={task} />
      </div>
      <div className="task-facts">
        <p className="task-model">
          <Link href={`/generations/${task.id}`}>{task.model}</Link>
        </p>
        <p className="muted">
          <span className={`status status-${task.status}`}>{statusText(task)}</span>
          {task.cost !== undefined && ` · ${formatUsd(task.cost)}`}
          {task.created_at && ` · ${formatTime(task.created_at)}`}
        </p>
        {task.prompt && <p className="task-prompt">{task.prompt}</p>}
      </div>
    </li>
  );
}

/** "processing · rendering 42 %" while it runs, else the status. */
export function statusText(task: Task): string {
  const progress = task.status === 'processing' ? task.progress : undefined;
  if (!progress?.stage) return task.status;
  return `${task.status} · ${progress.stage}${progress.percent !== undefined ? ` ${Math.round(progress.percent)} %` : ''}`;
}

export const isRunning = (task: Task) => task.status === 'queued' || task.status === 'processing';
