// OpenAI's multipart requests (a video's `input_reference`, an image to edit, a recording to transcribe): the text
// fields, and the file stored as the caller's upload by POST /uploads itself (its types, magic numbers, size limits
// and quota), streamed as it arrives. The generation then names the upload's URL.
import type { Request } from 'express';
import busboy from 'busboy';
import { type AdapterExchange, run } from '../adapter-call.ts';
import type { BodyStream } from '../call.ts';
import { ApiError } from '../errors.ts';

export interface Form {
  fields: Record<string, string>;
  /** The uploaded file's URL, by the part's name. */
  files: Record<string, string>;
}

export const isMultipart = (req: Request) => req.is('multipart/form-data') === 'multipart/form-data';

/** One file part as POST /uploads's body: its bytes as they come, declared as the part declared them. */
async function uploaded(adapter: AdapterExchange, file: NodeJS.ReadableStream & BodyStream, mimeType: string) {
  const answer = await run(adapter, 'createUpload', {
    headers: { 'content-type': mimeType, 'content-length': undefined },
    hasBody: true,
    bodyStream: file,
  });
  return (answer.body as { url: string }).url;
}

/** Reads a multipart body: at most one file (each of `fileParts`), a few short text fields. */
export function readForm(adapter: AdapterExchange, req: Request, fileParts: string[]): Promise<Form> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 30, fieldSize: 64 * 1024 } });
    } catch (error) {
      reject(new ApiError('validation_error', `Invalid body: ${(error as Error).message}.`));
      return;
    }
    const form: Form = { fields: {}, files: {} };
    const uploads: Promise<void>[] = [];
    parser.on('field', (name, value) => (form.fields[name] = value));
    parser.on('file', (name, file, info) => {
      if (!fileParts.includes(name)) {
        file.resume();
        return;
      }
      const body = Object.defineProperty(file, 'complete', { get: () => req.complete }) as typeof file & BodyStream;
      const upload = uploaded(adapter, body, info.mimeType).then((url) => void (form.files[name] = url));
      // A refused file ends the reading at once (the rest of it would wait for a reader for ever).
      upload.catch((error: unknown) => {
        req.unpipe(parser);
        file.resume();
        reject(error);
      });
      uploads.push(upload);
    });
    parser.on('error', (error: Error) => reject(new ApiError('validation_error', `Invalid body: ${error.message}.`)));
    parser.on('close', () => {
      Promise.all(uploads).then(() => resolve(form), reject);
    });
    req.pipe(parser);
  });
}
