// What a generation type takes besides the model's options: a prompt, and which media inputs (by request field).
import type { components } from '../../api/schema';

export type GenerationRequest = components['schemas']['GenerationRequest'];
export type MediaField = 'image_url' | 'video_url' | 'audio_url' | 'images';

export interface TypeInputs {
  prompt: 'required' | 'optional' | 'none';
  media: { field: MediaField; label: string; accept: string }[];
}

const image = (label = 'Image') => ({ field: 'image_url' as const, label, accept: 'image/*' });
const video = { field: 'video_url' as const, label: 'Video', accept: 'video/*' };
const audio = { field: 'audio_url' as const, label: 'Audio', accept: 'audio/*' };
const references = { field: 'images' as const, label: 'Reference image', accept: 'image/*' };

const byType: Record<GenerationRequest['type'], TypeInputs> = {
  'text-to-image': { prompt: 'required', media: [] },
  'image-to-image': { prompt: 'required', media: [image()] },
  'text-to-video': { prompt: 'required', media: [] },
  'image-to-video': { prompt: 'optional', media: [image()] },
  'video-to-video': { prompt: 'optional', media: [video] },
  'reference-to-video': { prompt: 'required', media: [references] },
  'subject-to-video': { prompt: 'required', media: [references] },
  upscale: { prompt: 'none', media: [image()] },
  'face-swap': { prompt: 'none', media: [image('Picture'), { ...references, label: 'Face' }] },
  'lip-sync': { prompt: 'none', media: [video, audio] },
  'text-to-music': { prompt: 'required', media: [] },
  'text-to-audio': { prompt: 'required', media: [] },
  'audio-to-audio': { prompt: 'none', media: [audio] },
  'speech-to-text': { prompt: 'none', media: [audio] },
  'text-to-3d': { prompt: 'required', media: [] },
  'image-to-3d': { prompt: 'none', media: [image()] },
  'text-to-text': { prompt: 'required', media: [] },
};

export const inputsOf = (type: GenerationRequest['type']): TypeInputs => byType[type];
