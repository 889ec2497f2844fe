// A task's signed receipts: GET /generations/{id}/receipt (the caller's task, 404 as a read would be, and what it
// moved), and the receipt a settled x402 task's answer carries in PAYMENT-RESPONSE. `base`: the request's public one.
import { publicApiUrl } from '../../config/config.ts';
import type { TaskView } from '../../generations/task-view.ts';
import { paymentReceiptHeaders } from '../../payments/methods/registered.ts';
import type { Signers } from '../../payments/receipts/receipts.ts';
import { settlementReceiptExtension, taskReceipts } from '../../payments/receipts/task-receipts.ts';
import { type GenerationRead, type GenerationReadDeps, readGeneration } from './read.ts';

type ReceiptDeps = GenerationReadDeps & { signers: Pick<Signers, 'receipts'> };

const taskUrl = (base: string, taskId: string) => publicApiUrl(base, `/generations/${taskId}`);

export async function generationReceipts(deps: ReceiptDeps, read: GenerationRead, base: string) {
  const { task } = await readGeneration(deps, read);
  const owned = { id: task.id, accountId: read.account.id };
  return taskReceipts(deps.prisma, await deps.signers.receipts(base), owned, taskUrl(base, task.id));
}

/** The headers of a task's answer for its payment: once an x402 payment settled, its signed receipt among them. */
export async function paymentHeadersOf(deps: ReceiptDeps, task: Pick<TaskView, 'id' | 'payment'>, base: string) {
  if (!task.payment) return undefined;
  const extensions =
    task.payment.status === 'settled'
      ? await settlementReceiptExtension(
          deps.prisma,
          await deps.signers.receipts(base),
          task.id,
          taskUrl(base, task.id),
        )
      : undefined;
  return paymentReceiptHeaders(task.payment, extensions);
}
