// A task's signed receipts: GET /generations/{id}/receipt (the caller's task, 404 as a read would be, and what it
// moved), and the receipt a settled payment's answer carries in its method's headers. `base`: the request's public one.
import { publicApiUrl } from '../../config/config.ts';
import type { TaskView } from '../../generations/task-view.ts';
import type { PaymentMethods } from '../../payments/methods/registered.ts';
import { type Signers, signReceipt } from '../../payments/receipts/receipts.ts';
import { type GenerationRead, type GenerationReadDeps, readGeneration } from './read.ts';

type ReceiptDeps = GenerationReadDeps & { signers: Pick<Signers, 'receipts'>; payments: PaymentMethods };

const taskUrl = (base: string, taskId: string) => publicApiUrl(base, `/generations/${taskId}`);

/** The task's receipts, oldest first: none while nothing has moved. */
export async function generationReceipts(deps: ReceiptDeps, read: GenerationRead, base: string) {
  const { task } = await readGeneration(deps, read);
  const signer = await deps.signers.receipts(base);
  const facts = await deps.payments.receiptFacts(
    deps.prisma,
    { id: task.id, accountId: read.account.id },
    taskUrl(base, task.id),
  );
  return Promise.all(facts.map(async (fact) => ({ ...fact, receipt: await signReceipt(signer, fact) })));
}

/** The headers of a task's answer for its payment: once a payment settled, its method's signed receipt among them. */
export async function paymentHeadersOf(deps: ReceiptDeps, task: Pick<TaskView, 'id' | 'payment'>, base: string) {
  if (!task.payment) return undefined;
  const signer = await deps.signers.receipts(base);
  const paid = { id: task.id, payment: task.payment };
  return deps.payments.receiptHeaders({ prisma: deps.prisma, signer }, paid, taskUrl(base, task.id));
}
