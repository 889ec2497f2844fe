// The api's side of the deposit workflow: start or join the one workflow of a transaction, and wait a bounded time.
import {
  ApplicationFailure,
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
} from '@temporalio/client';
import {
  type DepositInput,
  type DepositResult,
  type DepositState,
  depositStateQuery,
  type DepositWorkflow,
} from '../../../workflows/deposit.types.ts';
import { depositChain, depositStatus } from '../../../workflows/search-attributes.ts';
import type { DepositRef } from '../../payments/deposits/deposits.ts';

export const depositWorkflowId = ({ chain, txHash }: DepositRef) => `deposit:${chain}:${txHash}`;

/** Starts the transaction's deposit workflow unless one runs or ran (a run that failed may start again). */
export async function startDepositWorkflow(
  temporal: { client: Client; taskQueue: string },
  input: DepositInput,
): Promise<string> {
  const workflowId = depositWorkflowId(input);
  try {
    await temporal.client.workflow.start<DepositWorkflow>('depositWorkflow', {
      workflowId,
      taskQueue: temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      // For the Web UI's filters; the workflow adds the account and keeps the status current.
      typedSearchAttributes: [
        { key: depositChain, value: input.chain },
        { key: depositStatus, value: 'inspecting' },
      ],
      staticSummary: `USDC deposit on ${input.chain} · tx ${input.txHash}`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

export type DepositProgress =
  | { status: 'ended'; result: DepositResult }
  /** The transaction was never found: nothing was credited, and the hash may be claimed again. */
  | { status: 'not_found' }
  /** The run gave up (the chain unreachable for an hour): nothing was credited; the hash may be claimed again. */
  | { status: 'failed' }
  | { status: 'running'; state: DepositState };

/**
 * Starts the transaction's workflow, or joins the one that runs or ran (a run that failed may start again), then
 * waits up to `waitMs` for its result; past that, answers its current state.
 */
export async function claimDepositWorkflow(
  temporal: { client: Client; taskQueue: string },
  input: DepositInput,
  waitMs: number,
): Promise<DepositProgress> {
  const workflowId = await startDepositWorkflow(temporal, input);
  const handle = temporal.client.workflow.getHandle<DepositWorkflow>(workflowId);
  const controller = new AbortController();
  // Settles either way, so the long poll aborted after a timeout leaves no rejection behind.
  const ended = temporal.client
    .withAbortSignal(controller.signal, () => handle.result())
    .then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs).unref());
  const first = await Promise.race([ended, timeout]).finally(() => controller.abort());
  if (first && 'result' in first) return { status: 'ended', result: first.result };
  if (first) {
    const { error } = first;
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'DepositNotFound') return { status: 'not_found' };
    if (error instanceof WorkflowFailedError) return { status: 'failed' };
    throw error;
  }
  return { status: 'running', state: await handle.query(depositStateQuery) };
}
