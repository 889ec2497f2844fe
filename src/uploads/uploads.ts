// Callers' uploaded inputs: stored in the outputs' storage under `uploads/<account>/<id>.<ext>` once their bytes are
// checked to be the media they claim, counted against the account's quota, read and deleted by their owner only,
// and deleted for good when they expire. Another account's upload answers exactly like an unknown one.
import { fileTypeFromFile } from 'file-type';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { FieldError, NotFoundError, UploadQuotaError } from '../domain/errors.ts';
import { matchesDeclared, uploadMedia } from '../domain/upload-media.ts';
import type { Upload } from '../generated/prisma/client.ts';
import type { Storage } from '../storage/storage.ts';
import { uploadKey, uploadKeyOf } from '../storage/upload-keys.ts';
import { newId } from '../domain/ids.ts';

export interface UploadDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'uploads'>;
  storage: Storage;
}

export interface UploadView {
  id: string;
  url: string;
  content_type: string;
  size: number;
  created_at: string;
  expires_at: string;
}

export const uploadView = (storage: Storage, upload: Upload): UploadView => ({
  id: upload.id,
  url: storage.url(upload.key),
  content_type: upload.contentType,
  size: Number(upload.size),
  created_at: upload.createdAt.toISOString(),
  expires_at: upload.expiresAt.toISOString(),
});

/** Live: neither deleted nor past its expiry (the sweep may not have run yet). */
const live = () => ({ deletedAt: null, expiresAt: { gt: new Date() } });

/** The media the bytes are, when they are one an upload may be and what the caller declared (else 400). */
async function checkedMedia(path: string, declared: string, field: string) {
  const sniffed = await fileTypeFromFile(path);
  const media = sniffed && uploadMedia[sniffed.ext];
  if (!sniffed || !media) throw new FieldError(field, `is not an image, audio or video file an upload may be`);
  if (!matchesDeclared(sniffed.ext, declared))
    throw new FieldError(field, `is ${media.contentType}, not the declared ${declared.split(';')[0]}`);
  return { ...media, extension: sniffed.ext };
}

/** Stores a received file as the account's upload; nothing is kept when it is refused. */
export async function createUpload(
  deps: UploadDeps,
  input: { accountId: string; path: string; size: number; contentType: string; field: string },
): Promise<UploadView> {
  const media = await checkedMedia(input.path, input.contentType, input.field);
  const id = newId('upl');
  const key = uploadKey(input.accountId, id, media.extension);
  await deps.storage.putFile(key, input.path, { contentType: media.contentType });
  const now = new Date();
  try {
    const upload = await deps.prisma.$transaction(async (tx) => {
      // One upload of an account at a time passes the quota check: two at once cannot both squeeze under it.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`uploads:${input.accountId}`}, 0))`;
      const used = await tx.upload.aggregate({
        _sum: { size: true },
        where: { accountId: input.accountId, ...live() },
      });
      const usedBytes = used._sum.size ?? 0n;
      if (usedBytes + BigInt(input.size) > BigInt(deps.config.uploads.quotaBytes))
        throw new UploadQuotaError(deps.config.uploads.quotaBytes, usedBytes);
      return tx.upload.create({
        data: {
          id,
          accountId: input.accountId,
          key,
          contentType: media.contentType,
          size: BigInt(input.size),
          createdAt: now,
          expiresAt: new Date(now.getTime() + deps.config.uploads.ttlSeconds * 1000),
        },
      });
    });
    return uploadView(deps.storage, upload);
  } catch (error) {
    await deps.storage.remove(key);
    throw error;
  }
}

/** The account's live upload, or 404 (also for another account's, or an expired one). */
export async function getUpload(deps: Pick<UploadDeps, 'prisma'>, accountId: string, id: string): Promise<Upload> {
  const upload = await deps.prisma.upload.findFirst({ where: { id, accountId, ...live() } });
  if (!upload) throw new NotFoundError(`No upload ${id}.`);
  return upload;
}

/** Live uploads, newest first; of one account, or (genctl) of every account. */
export function listUploads(deps: Pick<UploadDeps, 'prisma'>, filter: { accountId?: string; limit?: number } = {}) {
  return deps.prisma.upload.findMany({
    where: { ...(filter.accountId ? { accountId: filter.accountId } : {}), ...live() },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: filter.limit ?? 100,
  });
}

/** Deletes an upload's file and marks its row; `accountId` limits it to the owner's (the API), none to any (genctl). */
export async function deleteUpload(
  deps: Pick<UploadDeps, 'prisma' | 'storage'>,
  id: string,
  accountId?: string,
): Promise<Upload> {
  const upload = await deps.prisma.upload.findFirst({
    where: { id, ...(accountId ? { accountId } : {}), ...live() },
  });
  if (!upload) throw new NotFoundError(`No upload ${id}.`);
  await deps.storage.remove(upload.key);
  return deps.prisma.upload.update({ where: { id }, data: { deletedAt: new Date() } });
}

/** One pass of the expiry sweep: deletes the files of up to `limit` expired uploads and marks them deleted. */
export async function deleteExpiredUploads(
  deps: Pick<UploadDeps, 'prisma' | 'storage'>,
  limit: number,
): Promise<{ deleted: string[] }> {
  const expired = await deps.prisma.upload.findMany({
    where: { deletedAt: null, expiresAt: { lte: new Date() } },
    orderBy: { expiresAt: 'asc' },
    take: limit,
  });
  // The files go first (one batched delete): a row marked deleted never names a file that is still there.
  await deps.storage.remove(...expired.map((upload) => upload.key));
  await deps.prisma.upload.updateMany({
    where: { id: { in: expired.map((upload) => upload.id) }, deletedAt: null },
    data: { deletedAt: new Date() },
  });
  return { deleted: expired.map((upload) => upload.id) };
}

/**
 * Refuses, naming the field, an input URL that is one of our upload URLs but not a live upload of `accountId`
 * (null: a caller without an account, who owns none): another account's reads exactly like an unknown one.
 */
export async function checkUploadInputs(
  deps: Pick<UploadDeps, 'prisma' | 'storage'>,
  accountId: string | null,
  inputs: { field: string; url: string }[],
): Promise<void> {
  const uploads = inputs.flatMap((input) => {
    const key = uploadKeyOf(deps.storage, input.url);
    return key ? [{ ...input, key }] : [];
  });
  if (uploads.length === 0) return;
  const owned = accountId
    ? await deps.prisma.upload.findMany({
        where: { key: { in: uploads.map((upload) => upload.key) }, accountId, ...live() },
        select: { key: true },
      })
    : [];
  const ownedKeys = new Set(owned.map((upload) => upload.key));
  const foreign = uploads.find((upload) => !ownedKeys.has(upload.key));
  if (foreign) throw new FieldError(foreign.field, 'names no upload of this account (unknown, expired or deleted)');
}
