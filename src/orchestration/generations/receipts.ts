// A task's signed receipts: GET /generations/{id}/receipt (the caller's task, 404 as a read would be, and what it
// moved), and the receipt a settled x402 task's answer carries in PAYMENT-RESPONSE.
import type { JWSSigner } from '@x402/extensions/offer-receipt';
import { publicApiUrl, type ServerConfig } from '../../config/config.ts';
import type { TaskView } from '../../generations/task-view.ts';
import { paymentReceiptHeaders } from '../../payments/methods/registered.ts';
import { settlementReceiptExtension, taskReceipts } from '../../payments/receipts/task-receipts.ts';
import { type GenerationRead, type GenerationReadDeps, readGeneration } from './read.ts';

type ReceiptDeps = GenerationReadDeps & { receiptSigner: () => Promise<JWSSigner>; config: { server: ServerConfig } };

const taskUrl = (deps: ReceiptDeps, taskId: string) => publicApiUrl(deps.config.server, `/generations/${taskId}`);

export async function generationReceipts(deps: ReceiptDeps, read: GenerationRead) {
  const { task } = await readGeneration(deps, read);
  const owned = { id: task.id, accountId: read.account.id };
  return taskReceipts(deps.prisma, await deps.receiptSigner(), owned, taskUrl(deps, task.id));
}

/** The headers of a task's answer for its payment: once an x402 payment settled, its signed receipt among them. */
export async function paymentHeadersOf(deps: ReceiptDeps, task: Pick<TaskView, 'id' | 'payment'>) {
  if (!task.payment) return undefined;
  const extensions =
    task.payment.status === 'settled'
      ? await settlementReceiptExtension(deps.prisma, await deps.receiptSigner(), task.id, taskUrl(deps, task.id))
      : undefined;
  return paymentReceiptHeaders(task.payment, extensions);
}
