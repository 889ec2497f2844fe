// Objects in an S3-compatible bucket (AWS S3, R2, MinIO, SeaweedFS, …) through the AWS SDK v3, which reads its own
// settings (AWS_REGION, credentials, AWS_ENDPOINT_URL_S3). Bodies are streamed: lib-storage uploads a stream of
// unknown length in parts, so no output is held whole in memory on its way in. Presigned links are signed by a client
// that adds no checksum parameters: Cloudflare R2 refuses a link that carries them.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checkedKey, ObjectNotFoundError, type ObjectStore, StoreUnavailableError } from './object-store.ts';
import { isStoreOutage } from './store-outage.ts';

export interface S3StoreSettings {
  bucket: string;
  /** Prepended to every key (`gateway/` keeps the gateway's objects apart in a shared bucket). */
  keyPrefix: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Anything else for the client (tests: an endpoint and credentials); the SDK's own settings otherwise. */
  client?: S3ClientConfig;
}

/** DeleteObjects takes at most 1,000 keys a call. */
const deleteBatch = 1_000;

/** Every operation's outage as the one error above this port knows (a 503 to a caller, a wait in an activity). */
function outagesNamed(store: ObjectStore): ObjectStore {
  const named =
    <A extends unknown[], T>(operation: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      try {
        return await operation(...args);
      } catch (error) {
        throw isStoreOutage(error) ? new StoreUnavailableError(error) : error;
      }
    };
  return {
    put: named(store.put),
    putFile: named(store.putFile),
    read: named(store.read),
    head: named(store.head),
    open: named(store.open),
    // Signing is local (no request): nothing to name.
    presignedUrl: store.presignedUrl,
    remove: named(store.remove),
    removeFolders: named(store.removeFolders),
    check: named(store.check),
  };
}

export function createS3ObjectStore(settings: S3StoreSettings): ObjectStore {
  const clientConfig = { forcePathStyle: settings.forcePathStyle, ...settings.client };
  const client = new S3Client(clientConfig);
  const signer = new S3Client({
    ...clientConfig,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;
  const objectKey = (key: string) => `${settings.keyPrefix}${checkedKey(key)}`;
  const upload = (key: string, Body: Buffer | Readable, ContentType?: string) =>
    new Upload({ client, params: { Bucket, Key: objectKey(key), Body, ContentType } }).done();
  /** Deletes objects by their bucket keys, 1,000 a call. */
  const deleteObjects = async (keys: string[]) => {
    for (let start = 0; start < keys.length; start += deleteBatch) {
      const Objects = keys.slice(start, start + deleteBatch).map((Key) => ({ Key }));
      const answer = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }));
      // Quiet: only the keys that could not be deleted come back.
      if (answer.Errors?.length)
        throw new Error(`S3 kept ${answer.Errors.length} objects: ${answer.Errors[0]!.Message}`);
    }
  };
  /** The bucket keys of every object under `<folder>/`, page by page. */
  const listFolder = async (folder: string) => {
    const Prefix = `${objectKey(folder)}/`;
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys;
  };
  return outagesNamed({
    async put(key, body, metadata) {
      await upload(key, body, metadata?.contentType);
    },
    async putFile(key, path, metadata) {
      await upload(key, createReadStream(path), metadata?.contentType);
    },
    async read(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (error) {
        if (error instanceof NoSuchKey) throw new ObjectNotFoundError(key);
        throw error;
      }
    },
    async head(key) {
      try {
        const object = await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
        return { contentLength: object.ContentLength ?? 0, contentType: object.ContentType, etag: object.ETag };
      } catch (error) {
        if (error instanceof NotFound) return null;
        throw error;
      }
    },
    async open(key, { range } = {}) {
      const Range = range && `bytes=${range.start}-${range.end}`;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key), Range }));
        return {
          body: object.Body as Readable,
          contentLength: object.ContentLength,
          contentType: object.ContentType,
          etag: object.ETag,
        };
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw error;
      }
    },
    presignedUrl: (key, seconds) =>
      getSignedUrl(signer, new GetObjectCommand({ Bucket, Key: objectKey(key) }), { expiresIn: seconds }),
    async remove(...keys) {
      await deleteObjects(keys.map(objectKey));
    },
    // A bucket has no folders: each one is listed, then the objects of all of them deleted in batches.
    async removeFolders(...folders) {
      await deleteObjects((await Promise.all(folders.map(listFolder))).flat());
    },
    async check(signal) {
      // Any answer, a refusal included (a key allowed objects but not ListBucket gets 403), means the store is up.
      await client.send(new HeadBucketCommand({ Bucket }), { abortSignal: signal }).catch((error: unknown) => {
        if (isStoreOutage(error)) throw error;
      });
    },
  });
}
