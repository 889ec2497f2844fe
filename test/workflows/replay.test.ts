// Guards workflow code changes: the current code must replay the histories recorded from earlier runs without
// non-determinism. They come from `npm run record-histories`; once there are deployments, a history recorded before a
// patch stays as it is, beside the one recorded after it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { expect, it } from 'vitest';
import { bundleWorkflows } from '../helpers/temporal.ts';

// Histories are stored as protobuf (temporal.api.history.v1.History), exactly as the server sends them.
const histories = [
  'generation-completed.binpb',
  'generation-failed.binpb',
  'generation-completed-webhook.binpb',
  'generation-failed-webhook-handed-over.binpb',
  'generation-completed-webhook-shaped.binpb',
  'generation-failed-webhook-shaped.binpb',
  'generation-refused.binpb',
  'generation-upstream-job.binpb',
  'generation-provider-fallback.binpb',
  'generation-provider-queue.binpb',
  'generation-adopted.binpb',
  'generation-adopted-early.binpb',
  'generation-cancelled.binpb',
  'generation-answer-lost.binpb',
  'generation-answer-lost-adopted.binpb',
  'webhook-delivery-retried.binpb',
  'deposit-credited.binpb',
  'deposit-not-found.binpb',
  'task-reconciler.binpb',
  'replay-batch.binpb',
  'upload-expiry.binpb',
  'output-expiry.binpb',
];
const readHistory = (file: string) =>
  temporal.api.history.v1.History.decode(readFileSync(join(import.meta.dirname, 'histories', file)));

it.each(histories)('replays %s with the current workflow code', async (file) => {
  const history = readHistory(file);
  const workflowBundle = await bundleWorkflows();
  await expect(Worker.runReplayHistory({ workflowBundle }, history, `replay-${file}`)).resolves.toBeUndefined();
});

it("the replay would catch a change of the workflow's steps", async () => {
  const history = readHistory('generation-completed.binpb');
  // A history of the ping workflow cannot be the generation workflow's: replaying it under that type must fail.
  const altered = {
    ...history,
    events: history.events?.map((event) =>
      event.workflowExecutionStartedEventAttributes
        ? {
            ...event,
            workflowExecutionStartedEventAttributes: {
              ...event.workflowExecutionStartedEventAttributes,
              workflowType: { name: 'pingWorkflow' },
            },
          }
        : event,
    ),
  };
  await expect(
    Worker.runReplayHistory({ workflowBundle: await bundleWorkflows() }, altered as typeof history, 'replay-altered'),
  ).rejects.toThrow();
});
