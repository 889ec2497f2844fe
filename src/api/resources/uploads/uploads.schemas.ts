import { z } from '../../schemas/zod.ts';

export const UploadSchema = z
  .object({
    id: z.string().openapi({ description: 'Upload id (upl_…)' }),
    url: z.string().openapi({
      description:
        'Use it as `image_url`, `video_url`, `audio_url` or in `images`/`videos` of a generation by the same account. It is not served for download.',
    }),
    content_type: z.string().openapi({ description: 'The media type the bytes were found to be' }),
    size: z.number().int().openapi({ description: 'Bytes' }),
    created_at: z.string(),
    expires_at: z.string().openapi({ description: 'When the upload and its file are deleted' }),
  })
  .openapi('Upload');

export const UploadListSchema = z.object({ uploads: z.array(UploadSchema) }).openapi('UploadList');

export const UploadIdParamsSchema = z.object({
  id: z
    .string()
    .regex(/^upl_[0-9A-Za-z]{22}$/, 'must be an upload id (upl_ followed by 22 letters and digits)')
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Upload id (upl_…)' }),
});
