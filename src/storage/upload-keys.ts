// Where uploads live in storage: `uploads/<account>/<id>.<ext>`, apart from the outputs (`<task id>/…`), which is how
// an input URL is recognised as one of our uploads and read from storage instead of downloaded.
import type { Storage } from './storage.ts';

const uploadsPrefix = 'uploads/';

export const uploadKey = (accountId: string, id: string, extension: string) =>
  `${uploadsPrefix}${accountId}/${id}.${extension}`;

/** The storage key of an upload URL of this storage (whoever owns it); null for any other URL. */
export function uploadKeyOf(storage: Storage, url: string): string | null {
  const key = storage.keyOf(url);
  return key?.startsWith(uploadsPrefix) ? key : null;
}
