// The payer's part of admission (admit.ts), whichever way it pays: its method (src/payments/methods/registered.ts)
// finds a retry's task, checks a payment before inputs are downloaded, and authorizes the price.
import { requestHash } from '../../generations/request.ts';
import { storedRequest } from '../../generations/tasks.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import type { EarlierTask, PayerAdmission } from '../../payments/methods/payment-method.ts';
import { type AdmissibleRequest, leastMeasuredPrice, measuredRequest } from './admissible.ts';

/** The task admitted earlier under this payer's claim; one for another body is refused. */
export async function earlierTask(
  prisma: PrismaClient,
  admission: PayerAdmission,
  hash: string,
): Promise<EarlierTask | null> {
  const task = await admission.earlierTask(prisma);
  if (task && requestHash(storedRequest(task)) !== hash) throw admission.reusedError();
  return task;
}

/**
 * The request priced, and who pays that price. A payment nobody can make good downloads nothing: where the price
 * follows the inputs' length, the payer's method may refuse it at the least price before they are measured.
 */
export async function pricedAndAuthorized(
  deps: Parameters<typeof measuredRequest>[0],
  admission: PayerAdmission,
  declared: AdmissibleRequest,
) {
  if (declared.model.measured_inputs && admission.checkBeforeMeasuring)
    await admission.checkBeforeMeasuring(declared, leastMeasuredPrice(declared));
  const priced = await measuredRequest(deps, declared);
  return { priced, paidBy: await admission.authorize(priced, false) };
}
