// Which bytes of a stored file a GET asks for (RFC 9110 §14), answered as express.static answers them for the local
// driver: one range; the whole file for no Range, a malformed one, several, or an If-Range naming another version.
import type { Request } from 'express';
import type { ByteRange, ObjectHead } from '../../storage/object-store.ts';
import { ApiError } from '../errors.ts';

export function requestedRange(req: Request, head: ObjectHead): ByteRange | undefined {
  if (!/^ *bytes=/.test(req.get('Range') ?? '')) return undefined;
  const ifRange = req.get('If-Range');
  if (ifRange !== undefined && ifRange !== head.etag) return undefined;
  const ranges = req.range(head.contentLength, { combine: true });
  if (ranges === -1) throw rangeNotSatisfiable(`bytes */${head.contentLength}`);
  if (ranges === undefined || ranges === -2 || ranges.length !== 1) return undefined;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

// `contentRange` gives the file's size (`bytes */size`); the answer is no version of the file, so it is not cached.
export const rangeNotSatisfiable = (contentRange: string) =>
  new ApiError(
    'range_not_satisfiable',
    'No bytes of the file are in the range asked for; Content-Range gives its size.',
    {},
    { 'Content-Range': contentRange, 'Cache-Control': 'no-store' },
  );
