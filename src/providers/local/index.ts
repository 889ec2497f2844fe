import type { LocalEngine } from '../types.ts';
import { audioCleanEngine } from './audio-clean.engine.ts';
import { espeakEngine } from './espeak.engine.ts';
import { kenBurnsEngine } from './ken-burns.engine.ts';
import { transcodeEngine } from './transcode.engine.ts';
import { upscaleEngine } from './upscale.engine.ts';

/** Local engines by the catalog's `upstream.model`. A catalog model without an engine here cannot run yet. */
export const localEngines: Record<string, LocalEngine> = {
  'sharp-lanczos3': upscaleEngine,
  'ffmpeg-zoompan': kenBurnsEngine,
  'ffmpeg-transcode': transcodeEngine,
  'ffmpeg-loudnorm-afftdn': audioCleanEngine,
  'espeak-ng': espeakEngine,
};
