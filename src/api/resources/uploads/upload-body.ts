// Receives an upload's bytes into a temporary file, as the raw body (its Content-Type the media's) or as the `file`
// part of multipart/form-data; counts them as they come and stops at the limit of the declared media kind (413)
// instead of buffering or storing an unbounded body.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { BodyStream, Call } from '../../call.ts';
import { writeLimited } from '../../../net/limited-file.ts';
import { declarableUploadTypes, declaredKind, type UploadKind } from '../../../domain/upload-media.ts';
import { ApiError } from '../../errors.ts';

export interface ReceivedUpload {
  /** The temporary file; `discard()` removes it. */
  path: string;
  size: number;
  /** As the caller declared it (the header, or the part's). */
  contentType: string;
  /** The field named in messages: `body` for a raw body, the part's name for multipart. */
  field: string;
  discard(): Promise<void>;
}

export type UploadLimits = Record<UploadKind, number>;

// A refused body is left unread, not destroyed: the answer (413) still goes out on its connection.
const unconsumed = (source: Readable) => source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;

// The rest of a refused body is not read: the connection closes after the answer.
const tooLarge = (kind: UploadKind, limit: number) =>
  new ApiError(
    'payload_too_large',
    `The ${kind} is larger than the limit of ${limit} bytes for ${kind} uploads.`,
    {},
    { Connection: 'close' },
  );

const refusedType = (field: string, contentType: string | undefined) =>
  new ApiError(
    'validation_error',
    `Invalid body: ${field}: Content-Type ${contentType ?? 'none'} cannot be uploaded; allowed: ${declarableUploadTypes.join(', ')}.`,
  );

/** What an upload is read from: the call's headers and its body, unread. */
type UploadSource = Pick<Call, 'headers' | 'hasBody'> & { body: BodyStream };

async function receiveRaw(
  req: UploadSource,
  path: string,
  limits: UploadLimits,
): Promise<Omit<ReceivedUpload, 'discard'>> {
  const contentType = req.headers['content-type'];
  const kind = declaredKind(contentType);
  if (!kind) throw refusedType('Content-Type', contentType);
  const limit = limits[kind];
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge(kind, limit);
  const size = await writeLimited(unconsumed(req.body), path, limit, () => tooLarge(kind, limit));
  return { path, size, contentType: contentType!, field: 'body' };
}

/** The one file part of a multipart body (other fields are ignored, a second file too). */
function receiveMultipart(
  { headers, body: req }: UploadSource,
  path: string,
  limits: UploadLimits,
): Promise<Omit<ReceivedUpload, 'discard'>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: { files: 1, fields: 20, fieldSize: 1024 } });
    } catch (error) {
      reject(new ApiError('validation_error', `Invalid body: ${(error as Error).message}.`));
      return;
    }
    let written: Promise<Omit<ReceivedUpload, 'discard'>> | undefined;
    // A refused part ends the request's reading at once.
    const refuse = (error: unknown) => {
      req.unpipe(parser);
      reject(error);
    };
    parser.on('file', (field, file, info) => {
      const kind = declaredKind(info.mimeType);
      if (!kind) {
        file.resume();
        refuse(refusedType(field, info.mimeType));
        return;
      }
      written = writeLimited(unconsumed(file), path, limits[kind], () => tooLarge(kind, limits[kind])).then((size) => ({
        path,
        size,
        contentType: info.mimeType,
        field,
      }));
      written.catch(refuse);
    });
    parser.on('error', (error: Error) => refuse(new ApiError('validation_error', `Invalid body: ${error.message}.`)));
    parser.on('close', () => {
      if (written) written.then(resolve, reject);
      else reject(new ApiError('validation_error', 'Invalid body: file: a file part is required.'));
    });
    // Piping does not pass on a dropped connection: without this the part being written would wait for ever.
    req.once('close', () => {
      if (!req.complete) parser.destroy(new Error('the request ended before its body did'));
    });
    req.pipe(parser);
  });
}

/** multipart/form-data, by the media type alone (its parameters, the boundary, are busboy's), with a body. */
const isMultipart = ({ headers, hasBody }: Pick<Call, 'headers' | 'hasBody'>) =>
  hasBody && headers['content-type']?.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';

export async function receiveUpload(call: Call, limits: UploadLimits): Promise<ReceivedUpload> {
  // Only a transport with a body stream carries an upload (the REST route; no MCP tool runs this endpoint).
  if (!call.bodyStream) throw new ApiError('validation_error', 'Invalid body: body: the file is required.');
  const req = { headers: call.headers, hasBody: call.hasBody, body: call.bodyStream };
  const directory = await mkdtemp(join(tmpdir(), 'gateway-upload-'));
  const discard = () => rm(directory, { recursive: true, force: true });
  const path = join(directory, 'file');
  try {
    const multipart = isMultipart(req);
    const received = multipart ? await receiveMultipart(req, path, limits) : await receiveRaw(req, path, limits);
    return { ...received, discard };
  } catch (error) {
    await discard();
    throw error;
  }
}
