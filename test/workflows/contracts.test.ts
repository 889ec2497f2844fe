// The client side starts each workflow by name with its contract's signature (workflows/contracts/), never the body's
// type (import rule 4): tsc, here, holds every body to its contract, so a start the client types is one the body takes.
import { describe, expectTypeOf, it } from 'vitest';
import type * as workflows from '../../workflows/index.ts';
import type { DepositScanWorkflow, DepositWorkflow } from '../../workflows/contracts/deposit.types.ts';
import type { GenerationWorkflow } from '../../workflows/contracts/generation.types.ts';
import type { OAuthSweepWorkflow } from '../../workflows/contracts/oauth-sweep.types.ts';
import type { OutputExpiryWorkflow } from '../../workflows/contracts/output-expiry.types.ts';
import type { ReplayBatchWorkflow } from '../../workflows/contracts/replay-batch.types.ts';
import type { TaskReconcilerWorkflow } from '../../workflows/contracts/task-reconciler.types.ts';
import type { TopUpWorkflow } from '../../workflows/contracts/top-up.types.ts';
import type { UploadExpiryWorkflow } from '../../workflows/contracts/upload-expiry.types.ts';
import type { WebhookDeliveryWorkflow } from '../../workflows/contracts/webhook-delivery.types.ts';

describe('workflow contracts', () => {
  it('type every workflow body as its contract says', () => {
    expectTypeOf<typeof workflows.depositWorkflow>().toEqualTypeOf<DepositWorkflow>();
    expectTypeOf<typeof workflows.depositScanWorkflow>().toEqualTypeOf<DepositScanWorkflow>();
    expectTypeOf<typeof workflows.generationWorkflow>().toEqualTypeOf<GenerationWorkflow>();
    expectTypeOf<typeof workflows.oauthSweepWorkflow>().toEqualTypeOf<OAuthSweepWorkflow>();
    expectTypeOf<typeof workflows.outputExpiryWorkflow>().toEqualTypeOf<OutputExpiryWorkflow>();
    expectTypeOf<typeof workflows.replayBatchWorkflow>().toEqualTypeOf<ReplayBatchWorkflow>();
    expectTypeOf<typeof workflows.taskReconcilerWorkflow>().toEqualTypeOf<TaskReconcilerWorkflow>();
    expectTypeOf<typeof workflows.topUpWorkflow>().toEqualTypeOf<TopUpWorkflow>();
    expectTypeOf<typeof workflows.uploadExpiryWorkflow>().toEqualTypeOf<UploadExpiryWorkflow>();
    expectTypeOf<typeof workflows.webhookDeliveryWorkflow>().toEqualTypeOf<WebhookDeliveryWorkflow>();
  });
});
