import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const acceptableId = /^[\w.:-]{1,128}$/;

/** Keeps a caller's or proxy's X-Request-Id when it is sane, otherwise makes one; always echoes it. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id =
    typeof incoming === 'string' && acceptableId.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
  res.setHeader('X-Request-Id', id);
  return id;
}
