// Objects in an S3-compatible bucket (AWS S3, R2, MinIO, SeaweedFS, …) through the AWS SDK v3, which reads its own
// settings (AWS_REGION, credentials, AWS_ENDPOINT_URL_S3). Bodies are streamed: lib-storage uploads a stream of
// unknown length in parts, so no output is held whole in memory on its way in.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkedKey, ObjectNotFoundError, type ObjectStore } from './object-store.ts';

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

export function createS3ObjectStore(settings: S3StoreSettings): ObjectStore {
  const client = new S3Client({ forcePathStyle: settings.forcePathStyle, ...settings.client });
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
  return {
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
    async open(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
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
    async remove(...keys) {
      await deleteObjects(keys.map(objectKey));
    },
    // A bucket has no folders: each one is listed, then the objects of all of them deleted in batches.
    async removeFolders(...folders) {
      await deleteObjects((await Promise.all(folders.map(listFolder))).flat());
    },
  };
}
