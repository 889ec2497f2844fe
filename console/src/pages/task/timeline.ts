// A task's event stream as a timeline: one entry per event, with its time where the event has one.
import type { EventSourceMessage } from 'eventsource-parser';

export interface TimelineEntry {
  id: string;
  event: string;
  at?: string;
  detail?: string;
}

interface EventData {
  status?: string;
  created_at?: string;
  started_at?: string;
  completed_at?: string;
  updated_at?: string;
  error?: string;
  progress?: { stage?: string; percent?: number; queue_position?: number };
}

function timeOf(event: string, data: EventData): string | undefined {
  if (event === 'queued') return data.created_at;
  if (event === 'processing') return data.started_at;
  if (event === 'completed' || event === 'failed') return data.completed_at ?? data.updated_at;
  return undefined;
}

function detailOf(data: EventData): string | undefined {
  const progress = data.progress;
  if (data.error) return data.error;
  if (!progress) return undefined;
  const parts = [
    progress.stage,
    progress.percent !== undefined ? `${Math.round(progress.percent)} %` : undefined,
    progress.queue_position !== undefined ? `${progress.queue_position} ahead in the queue` : undefined,
  ];
  return parts.filter(Boolean).join(' · ') || undefined;
}

export function timelineEntry(message: EventSourceMessage, index: number): TimelineEntry {
  const event = message.event ?? 'message';
  let data: EventData = {};
  try {
    data = JSON.parse(message.data) as EventData;
  } catch {
    // A body that is not JSON still marks the step.
  }
  return { id: message.id ?? String(index), event, at: timeOf(event, data), detail: detailOf(data) };
}
