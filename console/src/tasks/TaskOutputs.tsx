// A task's outputs, each previewed whole with its download link; its error when it failed; its progress while it runs.
import { ErrorLine } from '../ui/ErrorLine';
import { OutputView } from './OutputPreview';
import { isRunning, statusText, type Task } from './TaskSummary';
import './tasks.css';

export function TaskOutputs({ task }: { task: Task }) {
  const outputs = task.outputs?.length ? task.outputs : task.output ? [task.output] : [];
  if (task.status === 'failed') return <ErrorLine error={task.error || 'The task failed.'} />;
  if (outputs.length === 0) return <p className="muted">{isRunning(task) ? statusText(task) : 'No outputs.'}</p>;
  return (
    <ul className="outputs">
      {outputs.map((url, index) => (
        <li key={url}>
          <OutputView url={url} type={task.type} label={`Output ${index + 1} of ${task.model}`} whole />
          <a href={url} download>
            Download output {index + 1}
          </a>
        </li>
      ))}
    </ul>
  );
}
