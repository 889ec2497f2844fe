// A task's first output where it is: a thumbnail, a player, or a text excerpt; nothing while it runs.
import { useQuery } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import { outputKind } from './output-kind';

type Task = components['schemas']['GenerationStatusResponse'];

function TextExcerpt({ url }: { url: string }) {
  const text = useQuery({
    queryKey: ['output-text', url],
    queryFn: async () => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${response.status}`);
      return (await response.text()).slice(0, 280);
    },
    staleTime: Infinity,
  });
  return <p className="excerpt">{text.data ?? (text.isError ? 'The text could not be loaded.' : '…')}</p>;
}

export function OutputPreview({ task }: { task: Task }) {
  const url = task.output;
  if (!url || task.status !== 'completed') return <span className="placeholder" aria-hidden="true" />;
  const label = `Output of ${task.model}`;
  switch (outputKind(task.type, url)) {
    case 'image':
      return <img src={url} alt={task.prompt ? `${label}: ${task.prompt}` : label} loading="lazy" />;
    case 'audio':
      return <audio controls preload="none" src={url} aria-label={label} />;
    case 'video':
      return <video controls preload="metadata" src={url} aria-label={label} />;
    case 'text':
      return <TextExcerpt url={url} />;
    default:
      return (
        <a href={url} download>
          Download output
        </a>
      );
  }
}
