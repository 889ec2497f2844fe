// A generation request as the services, the workflow and the providers see it: JSON-safe, one shape. The API's
// zod schemas validate HTTP bodies into these types.
import type { GenerateType, GenerationType, WebhookEventFilter } from './values.ts';

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerationRequest {
  type: GenerationType;
  model: string;
  prompt?: string;
  system_prompt?: string;
  messages?: Message[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  repetition_penalty?: number;
  enable_thinking?: boolean;
  negative_prompt?: string;
  image_url?: string;
  video_url?: string;
  audio_url?: string;
  images?: string[];
  videos?: string[];
  aspect_ratio?: string;
  resolution?: string;
  duration?: number;
  num_outputs?: number;
  /** Video with generated sound, where the model offers the choice (priced by its surcharge). */
  sound?: boolean;
  /** 3D models' mesh variant (priced by its surcharge). */
  generate_type?: GenerateType;
  seed?: number;
  webhook_url?: string;
  /** Which events `webhook_url` receives; absent: every one (today's behaviour). */
  webhook_events?: WebhookEventFilter[];
}

/** The alternate layout of POST /generations: `{ model, input: { … }, webhook }`; `type` defaults to the model's. */
export interface InputLayoutRequest {
  model: string;
  type?: GenerationType;
  input: Omit<GenerationRequest, 'type' | 'model' | 'webhook_url' | 'webhook_events'>;
  webhook?: string;
  webhook_events?: WebhookEventFilter[];
}
