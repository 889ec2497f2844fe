// The gateway's enumerations and value types. The API schemas, the catalog and the services import them from
// here, so the domain never depends on the transport.
export const generationTypes = [
  'text-to-image',
  'image-to-image',
  'text-to-video',
  'image-to-video',
  'video-to-video',
  'reference-to-video',
  'subject-to-video',
  'upscale',
  'face-swap',
  'lip-sync',
  'text-to-music',
  'text-to-audio',
  'audio-to-audio',
  'speech-to-text',
  'text-to-3d',
  'image-to-3d',
  'text-to-text',
] as const;
export type GenerationType = (typeof generationTypes)[number];

/** The 3D models' `generate_type`; anything but Normal may carry a surcharge. */
export const generateTypes = ['Normal', 'LowPoly', 'Geometry'] as const;
export type GenerateType = (typeof generateTypes)[number];

export const chains = ['base', 'polygon', 'ethereum'] as const;
export type Chain = (typeof chains)[number];

export const tiers = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Tier = (typeof tiers)[number];

export const taskStatuses = ['queued', 'processing', 'completed', 'failed'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
/** Completed or failed: a task that has ended never changes again. */
export const hasEnded = (status: string) => status === 'completed' || status === 'failed';

/**
 * A generation's `webhook_events`, as Replicate names them (`webhook_events_filter`): which of the task's events its
 * own `webhook_url` receives. This gateway sends a task webhook only when it ends (`completed`: completed or failed);
 * `start`, `output` and `logs` are taken for compatibility and select nothing more (the event stream carries them).
 */
export const webhookEventFilters = ['start', 'output', 'logs', 'completed'] as const;
export type WebhookEventFilter = (typeof webhookEventFilters)[number];

/** What is known of a running task, as its provider reports it; every field optional. */
export interface TaskProgress {
  /** What it is doing: `downloading input`, `rendering`, `in upstream queue`, `running upstream`, … */
  stage?: string;
  /** 0 to 100, where the engine or upstream can tell. */
  percent?: number;
  /** Jobs ahead of it at the upstream, where the upstream says (fal). */
  queue_position?: number;
}

/** `gen_` and 22 base62 characters (16 bytes), whether random or derived from an Idempotency-Key. */
export const taskIdPattern = /^gen_[0-9A-Za-z]{22}$/;
