import { createUpload, deleteUpload, getUpload, listUploads, uploadView } from '../../../uploads/uploads.ts';
import { declarableUploadTypes } from '../../../domain/upload-media.ts';
import { defineEndpoint } from '../../endpoint.ts';
import { receiveUpload } from './upload-body.ts';
import { UploadIdParamsSchema, UploadListSchema, UploadSchema } from './uploads.schemas.ts';

const tags = ['Uploads'];

export const uploadEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/uploads',
    operationId: 'createUpload',
    summary: 'Upload an input file',
    description:
      "Gateway extension (not in interface 1.1.0). Stores an input file for your generations: send the bytes as the body with the media's `Content-Type` (e.g. `image/png`), or as the `file` part of `multipart/form-data`. Images (PNG, JPEG, WebP, GIF), audio (WAV, MP3, FLAC, Ogg, M4A) and video (MP4, WebM, QuickTime) only: the bytes must be what the declared type says (magic numbers; HTML, SVG, scripts and unknown bytes are refused), else 400 naming the field (`Content-Type` or `body`, or the part's name). Each media kind has a size limit (413 `payload_too_large`; the connection closes); the account's live uploads have a byte quota (413 `upload_quota_exceeded`). Answers 201 with the upload: its `url` can be given as `image_url`, `video_url`, `audio_url` or in `images`/`videos` of a generation by the same account (another account's upload URL is 400 naming the field, like an unknown one). The file is not served for download. It is deleted at `expires_at`, after which its id answers 404 and a generation naming it is refused. Any API key; not x402 payments.",
    tags,
    auth: 'any',
    rawBody: { contentTypes: [...declarableUploadTypes, 'multipart/form-data'] },
    success: { status: 201, description: 'The upload is stored', schema: UploadSchema },
    errors: ['payload_too_large', 'upload_quota_exceeded'],
    handle: async ({ principal, ctx, call }) => {
      const { config } = ctx;
      const received = await receiveUpload(call, {
        image: config.uploads.maxImageBytes,
        audio: config.uploads.maxAudioBytes,
        video: config.uploads.maxVideoBytes,
      });
      try {
        return { status: 201, body: await createUpload(ctx, { accountId: principal.account.id, ...received }) };
      } finally {
        await received.discard();
      }
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/uploads',
    operationId: 'listUploads',
    summary: 'List your uploads',
    description: 'Gateway extension. Your live (not expired, not deleted) uploads, newest first, at most 100.',
    tags,
    auth: 'any',
    success: { status: 200, description: 'Live uploads, newest first (at most 100)', schema: UploadListSchema },
    handle: async ({ principal, ctx }) => {
      const uploads = await listUploads(ctx, { accountId: principal.account.id });
      return { body: { uploads: uploads.map((upload) => uploadView(ctx.storage, upload)) } };
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/uploads/{id}',
    operationId: 'getUpload',
    summary: 'Read an upload',
    description:
      "Gateway extension. Your upload; another account's, an expired or a deleted one answers 404 exactly like an unknown id.",
    tags,
    auth: 'any',
    request: { params: UploadIdParamsSchema },
    success: { status: 200, description: 'The upload', schema: UploadSchema },
    errors: ['not_found'],
    handle: async ({ params, principal, ctx }) => ({
      body: uploadView(ctx.storage, await getUpload(ctx, principal.account.id, params.id)),
    }),
  }),
  defineEndpoint({
    method: 'delete',
    path: '/uploads/{id}',
    operationId: 'deleteUpload',
    summary: 'Delete an upload',
    description:
      "Gateway extension. Deletes your upload and its file now (a task already admitted with it may fail to read it); another account's, an expired or a deleted one answers 404.",
    tags,
    auth: 'any',
    request: { params: UploadIdParamsSchema },
    success: { status: 200, description: 'The deleted upload, as it was', schema: UploadSchema },
    errors: ['not_found'],
    handle: async ({ params, principal, ctx }) => ({
      body: uploadView(ctx.storage, await deleteUpload(ctx, params.id, principal.account.id)),
    }),
  }),
];
