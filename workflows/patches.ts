// The ids of the workflow changes carried as patches (docs/development.md, "Changing a workflow"): runs recorded before
// a patch replay through its old branch.
import { patched } from '@temporalio/workflow';
import { lighterTaskShape, startedWithShape } from './contracts/generation.types.ts';

/**
 * Issue 41: the notify step makes each target's first attempt itself (before: a delivery workflow per target, which
 * settling a task started too), and a generation starts with GenStatus `processing` (before: `queued`, then an upsert).
 */
export const lighterTaskPatch = 'lighter-task';

/** Whether a generation run takes lighterTaskPatch's branch: its input says so, or else the patch. */
export const takesLighterTask = (input: { shape?: number }): boolean =>
  startedWithShape(input, lighterTaskShape) || patched(lighterTaskPatch);
