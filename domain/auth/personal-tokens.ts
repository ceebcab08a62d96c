import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Op, type WhereOptions } from 'sequelize';
import { sqlOne, sqlRows } from '../../db/sql.js';
import type { PersonalAccessTokenRow, TokenScope } from '../../db/models/personal-access-token.js';
import type { Actor } from '../../lib/actor.js';
import { AppError, ErrorCode, notFound, unauthenticated, validationError } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { publishAuthChange } from './auth-events.js';
import type { ClientPrincipal } from './principals.js';

/**
 * Personal access tokens of client accounts (docs/security.md "Personal access tokens"):
 * `hp_pat_<key id: 16 hex>_<secret: 64 hex>`. The key id finds the row; the secret (256 random
 * bits) is stored only as its SHA-256 and compared in constant time. A token acts as its user
 * on the client surface within its scopes (`requireAccess`), never on the admin surface and
 * never as an identity on public routes.
 */
export const TOKEN_PREFIX = 'hp_pat_';
const TOKEN_PATTERN = /^hp_pat_([0-9a-f]{16})_([0-9a-f]{64})$/;

/** Longest lifetime a token may be given; every token has an expiry. */
export const TOKEN_MAX_DAYS = 365;
/** Live (neither revoked nor expired) tokens one user may hold at a time. */
export const TOKEN_MAX_LIVE_PER_USER = 20;
/** Last-used time and address are written at most this often per token. */
export const TOKEN_USE_RECORD_INTERVAL_MS = 60_000;

export const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** A bearer value in the token's form goes here, never to the session check. */
export function isPersonalAccessToken(bearer: string): boolean {
  return bearer.startsWith(TOKEN_PREFIX);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The principal cache's key of a token: its key id and the hash of its secret, so a wrong secret never hits it. */
export function tokenCacheKey(keyId: string, secretHash: Buffer): string {
  return `pat:${keyId}:${secretHash.toString('hex')}`;
}

export function tokenStatus(row: Pick<PersonalAccessTokenRow, 'revoked_at' | 'expires_at'>, now = Date.now()): TokenStatus {
  if (row.revoked_at) return 'revoked';
  return row.expires_at.getTime() <= now ? 'expired' : 'active';
}

export type CreateTokenInput = { name: string; scopes: TokenScope[]; expiresInDays: number };

/**
 * Creates a token for the user and answers its value, the only time it exists outside the
 * caller's hands. The user's row is locked so that parallel creations respect the live limit.
 */
export async function createPersonalToken(
  deps: DomainDeps,
  userId: number,
  input: CreateTokenInput,
  meta: { ip: string },
): Promise<{ row: PersonalAccessTokenRow; token: string }> {
  const name = input.name.trim();
  if (!name) throw validationError({ name: ['令牌名称不能为空'] });
  const scopes = [...new Set(input.scopes)];
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const { User, PersonalAccessToken } = deps.db.models;
  const row = await deps.db.sequelize.transaction(async (transaction) => {
    const user = await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!user) throw notFound('用户不存在');
    const live = await PersonalAccessToken.count({
      where: { user_id: userId, revoked_at: null, expires_at: { [Op.gt]: new Date() } },
      transaction,
    });
    if (live >= TOKEN_MAX_LIVE_PER_USER) {
      throw new AppError(ErrorCode.VALIDATION, `最多只能同时持有 ${TOKEN_MAX_LIVE_PER_USER} 个有效的访问令牌，请先吊销不再使用的令牌`);
    }
    return PersonalAccessToken.create(
      {
        user_id: userId,
        name,
        key_id: keyId,
        secret_hash: sha256(secret),
        scopes,
        expires_at: new Date(Date.now() + input.expiresInDays * 86_400_000),
        created_ip: meta.ip.slice(0, 64),
      },
      { transaction },
    );
  });
  return { row, token: `${TOKEN_PREFIX}${keyId}_${secret}` };
}

export type TokenListQuery = { page: number; page_size: number; user_id?: number | undefined; status?: TokenStatus | undefined };

/** Newest first; `status` filters on revocation and expiry as of now. */
export async function listPersonalTokens(deps: DomainDeps, query: TokenListQuery): Promise<{ rows: PersonalAccessTokenRow[]; total: number }> {
  const now = new Date();
  const where: WhereOptions<PersonalAccessTokenRow> = {
    ...(query.user_id !== undefined ? { user_id: query.user_id } : {}),
    ...(query.status === 'revoked' ? { revoked_at: { [Op.ne]: null } } : {}),
    ...(query.status === 'active' ? { revoked_at: null, expires_at: { [Op.gt]: now } } : {}),
    ...(query.status === 'expired' ? { revoked_at: null, expires_at: { [Op.lte]: now } } : {}),
  };
  const { rows, count } = await deps.db.models.PersonalAccessToken.findAndCountAll({
    where,
    attributes: { exclude: ['secret_hash'] },
    order: [['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
}

/**
 * Revokes a token (of `userId` when given: a user revokes only their own). The token stops
 * working at once in every API process: the cache entry is dropped by the same NOTIFY as a
 * revoked session. Revoking a revoked token changes nothing and answers it again.
 */
export async function revokePersonalToken(
  deps: DomainDeps,
  tokenId: number,
  by: Actor,
  owner?: number,
): Promise<PersonalAccessTokenRow> {
  const { PersonalAccessToken } = deps.db.models;
  return deps.db.sequelize.transaction(async (transaction) => {
    const row = await PersonalAccessToken.findOne({
      where: { id: tokenId, ...(owner !== undefined ? { user_id: owner } : {}) },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!row) throw notFound('访问令牌不存在');
    if (row.revoked_at) return row;
    row.revoked_at = new Date();
    row.revoked_by_type = by.type;
    row.revoked_by_id = by.id;
    await row.save({ transaction });
    await publishAuthChange(deps, { session_id: tokenCacheKey(row.key_id, row.secret_hash) }, transaction);
    return row;
  });
}

type TokenAuthRow = {
  id: number;
  secret_hash: Buffer;
  scopes: TokenScope[];
  expires_at: Date;
  revoked_at: Date | null;
  user_id: number;
  status: string;
  email_verified_at: Date | null;
  is_verified: number;
};

const INVALID = '访问令牌无效';

/**
 * Resolves a personal access token to its user, as `authenticateClient` does a session: 40100
 * when malformed, unknown, wrong, revoked or expired; 40300 when the account is disabled. The
 * principal carries the token's scopes; the caller checks them against the route.
 */
export async function authenticatePersonalToken(deps: DomainDeps, bearer: string, meta: { ip: string }): Promise<ClientPrincipal> {
  const match = TOKEN_PATTERN.exec(bearer);
  if (!match) throw unauthenticated(INVALID);
  const [, keyId, secret] = match as unknown as [string, string, string];
  const hash = sha256(secret);
  const cacheKey = tokenCacheKey(keyId, hash);
  const cached = deps.authCache?.get(cacheKey);
  if (cached?.kind === 'client' && cached.token) {
    noteTokenUse(deps, cacheKey, cached.token.id, meta.ip);
    return cached;
  }
  const ticket = deps.authCache?.ticket() ?? 0;
  const row = await sqlOne<TokenAuthRow>(
    deps,
    `SELECT t.id, t.secret_hash, t.scopes, t.expires_at, t.revoked_at, u.id AS user_id, u.status, u.email_verified_at, u.is_verified
       FROM personal_access_tokens t
       JOIN users u ON u.id = t.user_id
      WHERE t.key_id = $1`,
    [keyId],
  );
  if (!row || row.secret_hash.length !== hash.length || !timingSafeEqual(row.secret_hash, hash)) throw unauthenticated(INVALID);
  if (row.revoked_at) throw unauthenticated('访问令牌已被吊销');
  if (row.expires_at.getTime() <= Date.now()) throw unauthenticated('访问令牌已过期');
  if (row.status !== 'active') throw new AppError(ErrorCode.FORBIDDEN, '账号已被禁用');
  const principal: ClientPrincipal = {
    kind: 'client',
    id: row.user_id,
    sessionId: cacheKey,
    emailVerified: row.email_verified_at !== null,
    isVerified: row.is_verified === 1,
    token: { id: row.id, scopes: row.scopes },
  };
  deps.authCache?.set(ticket, principal, row.expires_at);
  noteTokenUse(deps, cacheKey, row.id, meta.ip);
  return principal;
}

// When this process last wrote each token's use, by cache key (bounded): most requests skip the write.
const noted = new Map<string, number>();
const NOTED_MAX = 20_000;

/**
 * Records the token's last use, at most once a minute per token: this process skips the write
 * within the interval, and the one guarded UPDATE skips it when another process wrote it. Off
 * the request's path: a failed write is logged, never answered.
 */
function noteTokenUse(deps: DomainDeps, key: string, tokenId: number, ip: string): void {
  const now = Date.now();
  const last = noted.get(key);
  if (last !== undefined && now - last < TOKEN_USE_RECORD_INTERVAL_MS) return;
  if (noted.size >= NOTED_MAX) noted.clear();
  noted.set(key, now);
  sqlRows(
    deps,
    `UPDATE personal_access_tokens SET last_used_at = now(), last_used_ip = $2
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $3))`,
    [tokenId, ip.slice(0, 64), TOKEN_USE_RECORD_INTERVAL_MS / 1000],
  ).catch((err: unknown) => deps.logger.warn({ err, tokenId }, 'personal access token use not recorded'));
}
