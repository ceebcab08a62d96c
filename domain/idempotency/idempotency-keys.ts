import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, validationError } from '../../lib/errors.js';
import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';

/** How long a key answers its first result again; after that it is treated as never used. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

/**
 * An `in_progress` claim this old belongs to a request whose process died between claim and
 * answer (a live request deletes or completes its claim). The same request may then take it
 * over instead of being told "in progress" until the key expires. Far above any handler's
 * running time (plugin calls time out within seconds).
 */
export const IDEMPOTENCY_CLAIM_STALE_SECONDS = 300;

/** The header, as the client sends it and as it names the field of a 42200. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** 1 to 255 printable ASCII characters (what a header can carry unambiguously). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

export type IdempotentRequest = {
  /** Whose key: `<surface>:<principal id>`. */
  scope: string;
  key: string;
  method: string;
  /** The route's path template. */
  route: string;
  /** sha256 (hex) of method, concrete path and canonical body. */
  fingerprint: string;
};

export type IdempotencyClaim = { id: number; token: string };
export type StoredAnswer = { status: number; body: string };

export type ClaimOutcome = { kind: 'claimed'; claim: IdempotencyClaim } | { kind: 'replay'; answer: StoredAnswer };

/** A row that vanished (released, expired) between the failed claim and the read is claimed again, a few times at most. */
const CLAIM_ATTEMPTS = 3;

export const INVALID_IDEMPOTENCY_KEY_MESSAGE = '幂等键须为 1 到 255 个可打印的 ASCII 字符';

function invalidIdempotencyKey(): AppError {
  return validationError({ [IDEMPOTENCY_KEY_HEADER]: [INVALID_IDEMPOTENCY_KEY_MESSAGE] });
}

/**
 * Claims the key for this request in one committed statement, before the handler runs: a new
 * row, or one whose key expired (treated as absent), or an abandoned claim of the same request.
 * Otherwise the existing row decides: another request under this key is refused (42200), the
 * same request still running is 40920, a finished one answers its stored answer again. The
 * UNIQUE (scope, key) makes concurrent requests wait for each other's INSERT: one claims.
 */
export async function claimIdempotencyKey(deps: DomainDeps, request: IdempotentRequest): Promise<ClaimOutcome> {
  if (!IDEMPOTENCY_KEY_PATTERN.test(request.key)) throw invalidIdempotencyKey();
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const token = randomUUID();
    const claimed = await sqlOne<{ id: string }>(
      deps,
      `INSERT INTO idempotency_keys (scope, key, method, route, fingerprint, state, claim_token, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'in_progress', $6, now() + make_interval(hours => $7))
       ON CONFLICT ON CONSTRAINT idempotency_keys_once DO UPDATE
         SET method = EXCLUDED.method, route = EXCLUDED.route, fingerprint = EXCLUDED.fingerprint, state = 'in_progress',
             claim_token = EXCLUDED.claim_token, response_status = NULL, response_body = NULL, completed_at = NULL,
             created_at = now(), claimed_at = now(), expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
                AND idempotency_keys.claimed_at <= now() - make_interval(secs => $8))
       RETURNING id`,
      [request.scope, request.key, request.method, request.route, request.fingerprint, token, IDEMPOTENCY_KEY_TTL_HOURS, IDEMPOTENCY_CLAIM_STALE_SECONDS],
    );
    if (claimed) return { kind: 'claimed', claim: { id: Number(claimed.id), token } };

    const existing = await sqlOne<{ fingerprint: string; state: string; response_status: number | null; response_body: string | null; live: boolean }>(
      deps,
      `SELECT fingerprint, state, response_status, response_body, expires_at > now() AS live
         FROM idempotency_keys WHERE scope = $1 AND key = $2`,
      [request.scope, request.key],
    );
    if (!existing || !existing.live) continue;
    if (existing.fingerprint !== request.fingerprint) {
      throw validationError({ [IDEMPOTENCY_KEY_HEADER]: ['该幂等键已用于另一个请求（方法、路径或请求体不同），请使用新的幂等键'] });
    }
    if (existing.state === 'done' && existing.response_status !== null && existing.response_body !== null) {
      return { kind: 'replay', answer: { status: existing.response_status, body: existing.response_body } };
    }
    throw new AppError(ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS);
  }
  throw new AppError(ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS);
}

/**
 * Stores the answer to replay. Only the claim's own holder can: a claim taken over in the
 * meantime (expired, abandoned) has another token. Answers whether it was stored.
 */
export async function completeIdempotencyKey(deps: DomainDeps, claim: IdempotencyClaim, answer: StoredAnswer): Promise<boolean> {
  const row = await sqlOne<{ id: string }>(
    deps,
    `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4, completed_at = now()
      WHERE id = $1 AND claim_token = $2 AND state = 'in_progress' RETURNING id`,
    [claim.id, claim.token, answer.status, answer.body],
  );
  return row !== null;
}

/** Gives the key back (the request failed in a way the client should retry): the next request with it runs anew. */
export async function releaseIdempotencyKey(deps: DomainDeps, claim: IdempotencyClaim): Promise<void> {
  await sqlOne(deps, `DELETE FROM idempotency_keys WHERE id = $1 AND claim_token = $2 AND state = 'in_progress' RETURNING id`, [claim.id, claim.token]);
}
