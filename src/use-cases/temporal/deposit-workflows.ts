// The api's side of the deposit workflow: start or join the one workflow of a transaction, and wait a bounded time.
import { ActivityFailure, ApplicationFailure, type Client, WorkflowFailedError } from '@temporalio/client';
import {
  type DepositInput,
  type DepositResult,
  type DepositState,
  depositStateQuery,
  type DepositWorkflow,
  recheckableRejections,
} from '../../../workflows/contracts/deposit.types.ts';
import { depositChain, depositStatus } from '../../../workflows/contracts/search-attributes.ts';
import type { DepositRef } from '../../deposits/deposits.ts';
import { resultWithin, startOrJoin } from './start-or-join.ts';

export const depositWorkflowId = ({ chain, txHash }: DepositRef) => `deposit:${chain}:${txHash}`;

type ReusePolicy = 'ALLOW_DUPLICATE_FAILED_ONLY' | 'ALLOW_DUPLICATE';

/** Starts a run (or joins the running one); false when a closed run's outcome stands under this reuse policy. */
function start(temporal: { client: Client; taskQueue: string }, input: DepositInput, reuse: ReusePolicy) {
  return startOrJoin<DepositWorkflow>(temporal.client, 'depositWorkflow', {
    workflowId: depositWorkflowId(input),
    taskQueue: temporal.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: reuse,
    // For the Web UI's filters; the workflow adds the account and keeps the status current.
    typedSearchAttributes: [
      { key: depositChain, value: input.chain },
      { key: depositStatus, value: 'inspecting' },
    ],
    staticSummary: `USDC deposit on ${input.chain} · tx ${input.txHash}${input.recheck ? ' (looked up again)' : ''}`,
  });
}

/** Whether the closed run refused the hash for a reason time may undo: never seen, or dropped by a reorganisation. */
async function refusedForNow(client: Client, workflowId: string): Promise<boolean> {
  const { status, runId } = await client.workflow.getHandle<DepositWorkflow>(workflowId).describe();
  if (status.name !== 'COMPLETED') return false;
  // That run's result, not the latest run's: a run another claim has just started could keep this one waiting.
  const result = await client.workflow.getHandle<DepositWorkflow>(workflowId, runId).result();
  return result.outcome === 'rejected' && recheckableRejections.includes(result.reason);
}

/**
 * Starts the transaction's deposit workflow unless one runs or ran (a run that failed may start again). After a
 * refusal time may undo, a new run looks the hash up once more (`recheck`): credited if it has since been mined,
 * refused at once if it is still unknown, never another wait for it.
 */
export async function startDepositWorkflow(
  temporal: { client: Client; taskQueue: string },
  input: DepositInput,
): Promise<string> {
  const workflowId = depositWorkflowId(input);
  if (await start(temporal, input, 'ALLOW_DUPLICATE_FAILED_ONLY')) return workflowId;
  if (await refusedForNow(temporal.client, workflowId)) {
    await start(temporal, { ...input, recheck: true }, 'ALLOW_DUPLICATE');
  }
  return workflowId;
}

/**
 * Why a run failed, nothing credited: the chain or the database away for the hour its steps retry (a claim again may
 * credit it), or the ledger refusing the credit (activities/failures.ts: no attempt changes that).
 */
export type DepositFailure = 'chain_unreadable' | 'database_unavailable' | 'ledger_refused';

export type DepositProgress =
  | { status: 'ended'; result: DepositResult }
  /** The run gave up: nothing was credited; the hash may be claimed again. */
  | { status: 'failed'; why: DepositFailure }
  | { status: 'running'; state: DepositState };

const chainReads = new Set(['inspectDeposit', 'depositConfirmations']);
/** The non-retryable failures activities/failures.ts makes of a refusal by the ledger or the database. */
const refusals = new Set(['LedgerError', 'DeterministicFailure']);

function whyFailed(error: WorkflowFailedError): DepositFailure {
  const step = error.cause instanceof ActivityFailure ? error.cause : undefined;
  const cause = step?.cause;
  if (cause instanceof ApplicationFailure && cause.nonRetryable && refusals.has(cause.type ?? ''))
    return 'ledger_refused';
  return step && !chainReads.has(step.activityType ?? '') ? 'database_unavailable' : 'chain_unreadable';
}

/**
 * Starts the transaction's workflow, or joins the one that runs or ran (see startDepositWorkflow), then waits up to
 * `waitMs` for its result; past that, answers its current state.
 */
export async function claimDepositWorkflow(
  temporal: { client: Client; taskQueue: string },
  input: DepositInput,
  waitMs: number,
): Promise<DepositProgress> {
  const workflowId = await startDepositWorkflow(temporal, input);
  try {
    const ended = await resultWithin<DepositResult>(temporal.client, workflowId, waitMs);
    if (ended) return { status: 'ended', result: ended.result };
  } catch (error) {
    if (error instanceof WorkflowFailedError) return { status: 'failed', why: whyFailed(error) };
    throw error;
  }
  const handle = temporal.client.workflow.getHandle<DepositWorkflow>(workflowId);
  return { status: 'running', state: await handle.query(depositStateQuery) };
}
