import type { LocalEngine } from '../types.ts';
import { upscaleEngine } from './upscale.engine.ts';

/** Local engines by the catalog's `upstream.model`. A catalog model without an engine here cannot run yet. */
export const localEngines: Record<string, LocalEngine> = {
  'sharp-lanczos3': upscaleEngine,
};
