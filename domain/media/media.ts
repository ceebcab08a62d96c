import { createHash, randomBytes } from 'node:crypto';
import { inTransaction, sqlOne, sqlRows, type Tx } from '../../db/sql.js';
import type { MediaMime, MediaPurpose } from '../../db/models/support.js';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { EXTENSION_OF, inspectUpload } from './inspect.js';
import { newStorageKey, storageFor } from './storage.js';

export type MediaRow = {
  id: number;
  asset_id: string;
  storage_key: string;
  original_name: string;
  mime: MediaMime;
  size_bytes: number;
  sha256: string;
  width: number | null;
  height: number | null;
  visibility: 'public' | 'private';
  purpose: MediaPurpose;
  owner_user_id: number | null;
  uploaded_by_admin_id: number | null;
  deleted_at: Date | null;
  created_at: Date;
};

const COLUMN_NAMES = [
  'id', 'asset_id', 'storage_key', 'original_name', 'mime', 'size_bytes', 'sha256', 'width', 'height', 'visibility', 'purpose',
  'owner_user_id', 'uploaded_by_admin_id', 'deleted_at', 'created_at',
];
const COLUMNS = COLUMN_NAMES.join(', ');
const M_COLUMNS = COLUMN_NAMES.map((c) => `m.${c}`).join(', ');

// eslint-disable-next-line no-control-regex
const UNSAFE_NAME = /[\u0000-\u001F\u007F"\\/<>:|?*]/g;

/** A display name from the uploader's file name: no path, no control or quoting characters, the decided type's extension. */
export function safeFileName(name: string, mime: MediaMime): string {
  const base = Array.from(name.normalize('NFC').replace(UNSAFE_NAME, '_').replace(/\.[^.]*$/, '').trim()).slice(0, 100).join('');
  return `${base || 'file'}.${EXTENSION_OF[mime]}`;
}

export type StoreUploadInput = {
  bytes: Buffer;
  name: string;
  allowed: readonly MediaMime[];
  purpose: MediaPurpose;
  owner: { type: 'user'; id: number } | { type: 'admin'; id: number };
};

/**
 * Inspects an upload (type from its bytes, decode check), stores it under a random key and
 * records it with its SHA-256. The bytes are written before the row: a crash in between leaves
 * an unreferenced blob, never a row without bytes.
 */
export async function storeUpload(deps: DomainDeps, input: StoreUploadInput): Promise<MediaRow> {
  const inspected = await inspectUpload(input.bytes, input.allowed);
  const key = newStorageKey();
  await storageFor(deps.config).put(key, input.bytes, inspected.mime);
  const row = await sqlOne<MediaRow>(
    deps,
    `INSERT INTO media_files (asset_id, storage_key, original_name, mime, size_bytes, sha256, width, height, visibility, purpose, owner_user_id, uploaded_by_admin_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
    [
      randomBytes(16).toString('hex'),
      key,
      safeFileName(input.name, inspected.mime),
      inspected.mime,
      input.bytes.length,
      createHash('sha256').update(input.bytes).digest('hex'),
      inspected.width,
      inspected.height,
      input.purpose === 'ticket' ? 'private' : 'public',
      input.purpose,
      input.owner.type === 'user' ? input.owner.id : null,
      input.owner.type === 'admin' ? input.owner.id : null,
    ],
  );
  return row as MediaRow;
}

/** Uploads one client may make per hour (attachments are small and few; this bounds disk use by one account). */
export const CLIENT_UPLOADS_PER_HOUR = 30;

/** 42900 once the user uploaded CLIENT_UPLOADS_PER_HOUR files in the last hour (a bound on abuse, not an exact quota). */
export async function checkClientUploadRate(deps: DomainDeps, userId: number): Promise<void> {
  const row = await sqlOne<{ n: number }>(
    deps,
    "SELECT count(*)::int AS n FROM media_files WHERE owner_user_id = $1 AND created_at > now() - interval '1 hour'",
    [userId],
  );
  if ((row?.n ?? 0) >= CLIENT_UPLOADS_PER_HOUR) throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `上传过于频繁：每小时最多 ${CLIENT_UPLOADS_PER_HOUR} 个文件，请稍后再试`);
}

export async function findMediaByAssetId(deps: DomainDeps, assetId: string): Promise<MediaRow | null> {
  if (!/^[0-9a-f]{32}$/.test(assetId)) return null;
  return sqlOne<MediaRow>(deps, `SELECT ${COLUMNS} FROM media_files WHERE asset_id = $1 AND deleted_at IS NULL`, [assetId]);
}

/** Live files by asset id, locked FOR SHARE (a concurrent delete waits, then sees the new reference). */
export async function lockMediaForReference(deps: DomainDeps, assetIds: string[], tx: Tx): Promise<MediaRow[]> {
  if (assetIds.length === 0) return [];
  return sqlRows<MediaRow>(
    deps,
    `SELECT ${COLUMNS} FROM media_files WHERE asset_id = ANY($1::varchar[]) AND deleted_at IS NULL ORDER BY id FOR SHARE`,
    [assetIds],
    tx,
  );
}

/** Where a file is used: ticket replies and the home hero. */
const REFERENCES = `(SELECT count(*)::int FROM ticket_attachments a WHERE a.media_file_id = m.id)
  + (SELECT count(*)::int FROM site_home_hero h WHERE h.image_media_id = m.id)`;

export type MediaListQuery = {
  page: number;
  page_size: number;
  purpose?: MediaPurpose | undefined;
  mime?: MediaMime | undefined;
  user_id?: number | undefined;
  keyword?: string | undefined;
  referenced?: boolean | undefined;
};

export async function listMedia(deps: DomainDeps, query: MediaListQuery): Promise<{ rows: (MediaRow & { references: number })[]; total: number }> {
  const where = [
    'm.deleted_at IS NULL',
    '($1::varchar IS NULL OR m.purpose = $1)',
    '($2::varchar IS NULL OR m.mime = $2)',
    '($3::int IS NULL OR m.owner_user_id = $3)',
    `($4::text IS NULL OR m.original_name ILIKE '%' || $4 || '%' ESCAPE '\\')`,
    `($5::boolean IS NULL OR (${REFERENCES} > 0) = $5)`,
  ].join(' AND ');
  const keyword = query.keyword ? query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`) : null;
  const params = [query.purpose ?? null, query.mime ?? null, query.user_id ?? null, keyword, query.referenced ?? null];
  const [count] = await sqlRows<{ n: number }>(deps, `SELECT count(*)::int AS n FROM media_files m WHERE ${where}`, params);
  const rows = await sqlRows<MediaRow & { references: number }>(
    deps,
    `SELECT ${M_COLUMNS}, ${REFERENCES} AS references
       FROM media_files m WHERE ${where} ORDER BY m.id DESC LIMIT $6 OFFSET $7`,
    [...params, query.page_size, (query.page - 1) * query.page_size],
  );
  return { rows, total: count?.n ?? 0 };
}

/**
 * Deletes a file that nothing references (40901 otherwise): the row is marked deleted in one
 * guarded statement, then the bytes are removed. A reference added concurrently is refused by
 * the attach paths, which only take files that are not deleted.
 */
export async function deleteMedia(deps: DomainDeps, id: number): Promise<void> {
  const key = await inTransaction(deps, async (tx) => {
    // The row lock first (attaching takes FOR SHARE on it): the guarded update's own snapshot then sees every committed reference.
    const exists = await sqlOne<{ id: number }>(deps, 'SELECT id FROM media_files WHERE id = $1 AND deleted_at IS NULL FOR UPDATE', [id], tx);
    if (!exists) throw notFound('文件不存在');
    const deleted = await sqlOne<{ storage_key: string }>(
      deps,
      `UPDATE media_files m SET deleted_at = now() WHERE m.id = $1 AND m.deleted_at IS NULL AND ${REFERENCES} = 0 RETURNING m.storage_key`,
      [id],
      tx,
    );
    if (!deleted) throw new AppError(ErrorCode.IN_USE, '文件仍被工单或首页横幅引用，不能删除');
    return deleted.storage_key;
  });
  await storageFor(deps.config).remove(key);
}

/** The stored bytes of a live file. */
export async function readMediaBytes(deps: DomainDeps, row: MediaRow): Promise<Buffer | null> {
  return storageFor(deps.config).get(row.storage_key);
}
