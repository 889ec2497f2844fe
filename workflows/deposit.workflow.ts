// One workflow per deposit transaction (workflow id `deposit:<chain>:<tx hash>`), so each of its transfers is credited
// once, to the agent it paid. Refusals are outcomes, not failures: the run completes saying why.
import { proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { DepositActivities, DepositInspection } from '../activities/deposit.activities.ts';
import type { DepositFacts, DepositRef } from '../src/deposits/deposits.ts';
import {
  type DepositInput,
  type DepositRejection,
  type DepositResult,
  type DepositState,
  depositStateQuery,
} from './contracts/deposit.types.ts';
import { depositAccountId, depositStatus, type DepositStatus } from './contracts/search-attributes.ts';
import { notify } from './webhooks/webhook-notify.ts';

// Chain reads retry through an RPC outage with backoff, for an hour at most, then the run fails (and may be claimed again).
const chainReads = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
const databaseSteps = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} as const;
const { inspectDeposit, depositConfirmations } = proxyActivities<DepositActivities>(chainReads);
const { recordDeposit, creditDeposit, rejectDeposit } = proxyActivities<DepositActivities>(databaseSteps);

/** A transaction the node knows but has not mined yet may take this long. */
const pendingWaitMs = 60 * 60_000;
const maxPollMs = 15_000;

type Mined = Extract<DepositInspection, { kind: 'mined' }>;
type Settled = Exclude<DepositInspection, { kind: 'missing' }>;

/**
 * Looks at the transaction until it is mined (or refused); a hash unknown past `receiptWaitMs` is not found. A
 * transaction the node holds but has not mined is waited for longer.
 */
async function awaitReceipt(input: DepositInput, receiptWaitMs: number): Promise<Settled | null> {
  const started = Date.now();
  let interval = 1_000;
  for (;;) {
    const inspection = await inspectDeposit({ chain: input.chain, txHash: input.txHash });
    if (inspection.kind !== 'missing') return inspection;
    const waited = Date.now() - started;
    if (waited >= (inspection.pending ? pendingWaitMs : receiptWaitMs)) return null;
    await sleep(interval);
    interval = Math.min(Math.round(interval * 1.5), maxPollMs);
  }
}

const accountsOf = (seen: Mined) => [...new Set(seen.transfers.map((transfer) => transfer.accountId))];
const sameTransfers = (a: Mined, b: Mined) =>
  JSON.stringify(a.transfers.map((t) => [t.logIndex, t.accountId, t.amount])) ===
  JSON.stringify(b.transfers.map((t) => [t.logIndex, t.accountId, t.amount]));

/** Keeps DepositStatus (and the first account paid, once known) current for the Web UI's list, upserting only what changed. */
function statusAttributes() {
  let shown = '';
  return (status: DepositStatus, accountId?: string) => {
    if (`${status} ${accountId}` === shown) return;
    shown = `${status} ${accountId}`;
    const account = accountId ? [{ key: depositAccountId, value: accountId }] : [];
    upsertSearchAttributes([{ key: depositStatus, value: status }, ...account]);
  };
}

export async function depositWorkflow(input: DepositInput): Promise<DepositResult> {
  const ref: DepositRef = { chain: input.chain, txHash: input.txHash };
  let state: DepositState = { status: 'inspecting' };
  setHandler(depositStateQuery, () => state);
  const showStatus = statusAttributes();
  const receiptWaitMs = input.receiptWaitSeconds * 1000;
  const reject = async (reason: DepositRejection, accountIds?: string[]): Promise<DepositResult> => {
    await rejectDeposit({ ref, reason });
    showStatus('rejected', accountIds?.[0]);
    state = { outcome: 'rejected', reason, ...(accountIds ? { accountIds } : {}) };
    return state;
  };

  // 1. The transaction: mined, successful, paying USDC of the configured contract to our agents. A look again after
  // a refusal does not wait a second time for a hash nobody has seen.
  const first = await awaitReceipt(input, input.recheck ? 0 : receiptWaitMs);
  if (!first) {
    showStatus('not_found');
    state = { outcome: 'rejected', reason: 'not_found' };
    return state;
  }
  if (first.kind !== 'mined') return reject(first.kind);
  let mined: Mined = first;
  const factsOf = (seen: Mined): DepositFacts => ({
    ...ref,
    transfers: seen.transfers,
    blockNumber: seen.blockNumber,
  });
  await recordDeposit({ facts: factsOf(mined), status: 'pending' });

  // 2. Confirmations, on durable timers; then the receipt again: a reorg may have moved or dropped it.
  for (;;) {
    const { confirmations, required, pollIntervalMs } = await depositConfirmations({
      chain: input.chain,
      blockNumber: mined.blockNumber,
    });
    const accountIds = accountsOf(mined);
    state = { status: 'confirming', accountIds, confirmations, required };
    showStatus('confirming', accountIds[0]);
    if (confirmations >= required) {
      const again = await awaitReceipt(input, receiptWaitMs);
      if (!again) return reject('dropped', accountIds);
      if (again.kind !== 'mined') return reject(again.kind, accountIds);
      if (again.blockHash === mined.blockHash && sameTransfers(again, mined)) break;
      mined = again;
      await recordDeposit({ facts: factsOf(mined), status: 'pending' });
      continue;
    }
    await sleep(Math.min(Math.max((required - confirmations) * pollIntervalMs, 1_000), maxPollMs));
  }
  await recordDeposit({ facts: factsOf(mined), status: 'confirmed' });

  // 3. Credit through the ledger, one entry per transfer log; 4. tell each agent, once per deposit.
  const credits = await creditDeposit(factsOf(mined));
  state = { outcome: 'credited', credits };
  showStatus('credited', credits[0]?.accountId);
  for (const { accountId, deposits } of credits) {
    for (const deposit of deposits) {
      await notify({ event: 'deposit.credited', subject: deposit.id, accountId, data: deposit });
    }
  }
  return state;
}
