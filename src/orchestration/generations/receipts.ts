// GET /generations/{id}/receipt: the caller's task (404 as a read would be), and the signed receipts of what it moved.
import type { JWSSigner } from '@x402/extensions/offer-receipt';
import { publicBaseUrl, type ServerConfig } from '../../config/config.ts';
import { taskReceipts } from '../../payments/receipts/task-receipts.ts';
import { type GenerationRead, type GenerationReadDeps, readGeneration } from './read.ts';

export async function generationReceipts(
  deps: GenerationReadDeps & { receiptSigner: () => Promise<JWSSigner>; config: { server: ServerConfig } },
  read: GenerationRead,
) {
  const { task } = await readGeneration(deps, read);
  const resourceUrl = `${publicBaseUrl(deps.config.server)}/api/v1/generations/${task.id}`;
  return taskReceipts(
    deps.prisma,
    await deps.receiptSigner(),
    { id: task.id, accountId: read.account.id },
    resourceUrl,
  );
}
