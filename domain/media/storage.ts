import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { AppConfig } from '../../lib/config.js';
import { randomToken } from '../../lib/crypto.js';

/**
 * Where uploaded bytes live: one small interface, local disk by default, an S3-compatible
 * bucket by configuration (several API processes). Keys are random names made here
 * (`newStorageKey`), never derived from what the uploader sent.
 */
export type BlobStorage = {
  put(key: string, bytes: Buffer, mime: string): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
  remove(key: string): Promise<void>;
};

const KEY = /^[0-9a-f]{2}\/[0-9a-f]{40}$/;

/** A random key `ab/<40 hex>`: two-level fan-out on disk, no name, no extension. */
export function newStorageKey(): string {
  const name = randomToken(20);
  return `${name.slice(0, 2)}/${name}`;
}

function checkedKey(key: string): string {
  // Keys come from our own rows; a malformed one never reaches the file system.
  if (!KEY.test(key)) throw new Error('invalid storage key');
  return key;
}

/** Local disk under `<DATA_DIR>/media`: outside the repository's served tree (nothing serves DATA_DIR). */
export function localDiskStorage(dataDir: string): BlobStorage {
  const root = resolve(dataDir, 'media');
  const pathOf = (key: string) => join(root, checkedKey(key));
  return {
    async put(key, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Written whole under a temporary name, then renamed: a reader never sees half a file.
      const temporary = `${path}.${randomToken(4)}.tmp`;
      await writeFile(temporary, bytes, { flag: 'wx', mode: 0o600 });
      await rename(temporary, path);
    },
    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

/** An S3-compatible bucket (AWS, MinIO, COS, OSS in S3 mode); objects are private, served only through our signed view route. */
export function s3Storage(s3: AppConfig['storage']['s3']): BlobStorage {
  const client = new S3Client({
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId ?? '', secretAccessKey: s3.secretAccessKey ?? '' },
  });
  const Bucket = s3.bucket ?? '';
  const Key = (key: string) => `media/${checkedKey(key)}`;
  return {
    async put(key, bytes, mime) {
      await client.send(new PutObjectCommand({ Bucket, Key: Key(key), Body: bytes, ContentType: mime }));
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: Key(key) }));
        return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : null;
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw error;
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: Key(key) }));
    },
  };
}

const byConfig = new WeakMap<AppConfig, BlobStorage>();

/** The storage of this process's configuration (one client per process). */
export function storageFor(config: AppConfig): BlobStorage {
  let storage = byConfig.get(config);
  if (!storage) {
    storage = config.storage.driver === 's3' ? s3Storage(config.storage.s3) : localDiskStorage(config.storage.dataDir);
    byConfig.set(config, storage);
  }
  return storage;
}
