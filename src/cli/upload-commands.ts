// genctl uploads: callers' uploaded input files for operators — whose, how large, until when — and deleting one
// (its file goes at once, as DELETE /uploads/{id} does for its owner).
import type { PrismaClient } from '../db/prisma.ts';
import { NotFoundError } from '../domain/errors.ts';
import type { Upload } from '../generated/prisma/client.ts';
import { deleteUpload, listUploads } from '../uploads/uploads.ts';
import type { Storage } from '../storage/storage.ts';
import { CommandError, iso, limitOf, type Output } from './commands.ts';

function uploadJson(upload: Upload) {
  return {
    id: upload.id,
    account_id: upload.accountId,
    key: upload.key,
    content_type: upload.contentType,
    size: Number(upload.size),
    created_at: iso(upload.createdAt),
    expires_at: iso(upload.expiresAt),
    deleted_at: iso(upload.deletedAt),
  };
}

const uploadLine = (upload: Upload) =>
  [upload.id, upload.accountId, upload.contentType, `${upload.size} B`, `expires ${iso(upload.expiresAt)}`].join('  ');

/** Live uploads, newest first, optionally of one account. */
export async function listUploadsCommand(
  prisma: PrismaClient,
  options: { account?: string; limit?: string },
): Promise<Output> {
  const uploads = await listUploads({ prisma }, { accountId: options.account, limit: limitOf(options.limit) });
  return {
    json: { uploads: uploads.map(uploadJson) },
    text: uploads.length === 0 ? 'No uploads.' : uploads.map(uploadLine).join('\n'),
  };
}

export async function deleteUploadCommand(
  deps: { prisma: PrismaClient; storage: Storage },
  id: string | undefined,
): Promise<Output> {
  if (!id) throw new CommandError('missing the upload id', 2);
  try {
    const upload = await deleteUpload(deps, id);
    return { json: uploadJson(upload), text: `Deleted ${upload.id} (${upload.key}).` };
  } catch (error) {
    if (error instanceof NotFoundError) throw new CommandError(`no live upload ${id}`);
    throw error;
  }
}
