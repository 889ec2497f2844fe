// An output where it is: a thumbnail, a player, a 3D viewer or a text excerpt; a task shows its first, nothing while it runs.
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { ModelPreview } from './ModelPreview';
import { outputKind } from './output-kind';

type Task = components['schemas']['GenerationStatusResponse'];

function TextExcerpt({ url, length }: { url: string; length: number }) {
  const text = useQuery({
    // Keyed by the file's URL (not an API path: the account's events leave it be, and an output never changes).
    queryKey: [url],
    queryFn: async () => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${response.status}`);
      return response.text();
    },
    staleTime: 'static',
  });
  const shown = text.data && (text.data.length > length ? `${text.data.slice(0, length)}…` : text.data);
  return <p className="excerpt">{shown ?? (text.isError ? 'The text could not be loaded.' : '…')}</p>;
}

interface OutputProps {
  url: string;
  /** The task's generation type ("text-to-audio"), which says what the output is when its name does not. */
  type: string | undefined;
  label: string;
  /** The task page shows outputs whole: the text in full, media preloaded. */
  whole?: boolean;
}

export function OutputView({ url, type, label, whole }: OutputProps) {
  switch (outputKind(type, url)) {
    case 'image':
      return <img src={url} alt={label} loading="lazy" />;
    case 'audio':
      return <audio controls preload={whole ? 'metadata' : 'none'} src={url} aria-label={label} />;
    case 'video':
      return <video controls preload="metadata" src={url} aria-label={label} />;
    case 'text':
      return <TextExcerpt url={url} length={whole ? 20_000 : 280} />;
    case 'model':
      return <ModelPreview url={url} label={label} />;
    default:
      return (
        <a href={url} download>
          Download output
        </a>
      );
  }
}

export function OutputPreview({ task }: { task: Task }) {
  const url = task.output;
  if (!url || task.status !== 'completed') return <span className="placeholder" aria-hidden="true" />;
  const label = task.prompt ? `Output of ${task.model}: ${task.prompt}` : `Output of ${task.model}`;
  return <OutputView url={url} type={task.type} label={label} />;
}
