import { createUpload, deleteUpload, getUpload, listUploads, uploadView } from '../../uploads/uploads.ts';
import { declarableUploadTypes } from '../../domain/upload-media.ts';
import { endpointDescriptions } from '../descriptions.ts';
import { defineEndpoint } from '../endpoint.ts';
import { receiveUpload } from '../upload-body.ts';
import { UploadIdParamsSchema, UploadListSchema, UploadSchema } from '../schemas/uploads.schemas.ts';

const tags = ['Uploads'];

export const uploadEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/uploads',
    operationId: 'createUpload',
    summary: 'Upload an input file',
    description: endpointDescriptions.createUpload,
    tags,
    auth: 'any',
    rawBody: { contentTypes: [...declarableUploadTypes, 'multipart/form-data'] },
    success: { status: 201, description: 'The upload is stored', schema: UploadSchema },
    errors: ['payload_too_large', 'upload_quota_exceeded'],
    handle: async ({ principal, ctx, req }) => {
      const { config } = ctx;
      const received = await receiveUpload(req, {
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
    description: endpointDescriptions.listUploads,
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
    description: endpointDescriptions.getUpload,
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
    description: endpointDescriptions.deleteUpload,
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
