// The usage report's rows as the page shows them: each group's name, and its units in words.
import type { components } from '../../api/schema';

export type UsageReport = components['schemas']['UsageReport'];
export type UsageRow = components['schemas']['UsageRow'];
export type Grouping = 'day' | 'model' | 'type' | 'key';

/** The row's group as a label: "2026-11-27", "local/espeak", "text-to-audio", a key's name ("no key": x402). */
export function groupLabel(row: UsageRow, grouping: Grouping): string {
  if (grouping === 'key') return row.key_name ?? (row.key_id ? row.key_id : 'no key (x402)');
  return row[grouping] ?? '';
}

const unitNames: Record<keyof UsageRow['units'], string> = {
  requests: 'requests',
  images: 'images',
  videos: 'videos',
  audio_files: 'audio files',
  models_3d: '3D models',
  texts: 'texts',
  output_seconds: 's of output',
  characters: 'characters',
  input_minutes: 'min of input',
  input_tokens: 'input tokens',
  output_tokens: 'output tokens',
};

/** "12 images, 30 s of output". */
export function unitsText(units: UsageRow['units']): string {
  const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
  return (Object.entries(units) as [keyof UsageRow['units'], number][])
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${number.format(count)} ${unitNames[name]}`)
    .join(', ');
}
