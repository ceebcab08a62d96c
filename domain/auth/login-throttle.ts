import { isIPv4, isIPv6 } from 'node:net';
import { normaliseAddress } from '../../lib/client-address.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { Surface } from '../../db/models/auth-session.js';
import { sqlOne, sqlParams } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { RequestMeta } from './sessions.js';

/**
 * The login-log reasons that count as a failure: a wrong password, an unknown account, a wrong
 * or already used second-factor code. 'throttled' (refused unverified) and 'disabled' (right password) never
 * count, so nobody can extend a throttle by asking again. An attempt still being verified
 * ('pending') is not a failure: see `beginLoginAttempt` for how a burst is kept in check.
 */
const FAILURE_REASONS = ['bad_password', 'unknown_account', 'bad_code', 'replayed_code'] as const;
const FAILURE_SQL = `reason IN (${FAILURE_REASONS.map((r) => `'${r}'`).join(', ')})`;
/** Failures, and attempts in progress that might become failures. */
const GUESS_SQL = `(${FAILURE_SQL} OR reason = 'pending')`;

/** How long an attempt waits for earlier attempts in progress on its account or address to finish. */
const SETTLE_WAIT_MS = 10_000;
/** First pause between looks, doubled up to the longest (a burst of waiting requests stays cheap). */
const SETTLE_POLL_MS = 25;
const SETTLE_POLL_MAX_MS = 200;

/** An attempt whose login-log row exists (reason 'pending') and that passed the throttle. */
export type LoginAttempt = { id: number; surface: Surface; account: string };

export type LoginOutcome = { success: boolean; reason: string; subjectId: number | null };

/** Expands an IPv6 address into its eight 16-bit groups (null if it is not one). */
function ipv6Groups(address: string): number[] | null {
  let text = address.split('%')[0] ?? '';
  if (!isIPv6(text)) return null;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16));
}

/**
 * What the throttle counts an address by: an IPv4 address as is (also when it arrives
 * IPv4-mapped), an IPv6 address by its first `prefixLength` bits, since one subscriber usually
 * holds a whole /64 and could otherwise take a fresh address for every guess. Anything else
 * (an unparsable forwarded header) is kept as text; an unknown address is ''.
 */
export function throttleAddressKey(ip: string, prefixLength: number): string {
  // The one normalisation of addresses (mapped IPv4, zone ids) is lib/client-address's.
  const address = normaliseAddress(ip);
  if (isIPv4(address)) return address;
  const groups = address ? ipv6Groups(address) : null;
  if (!groups) return ip.trim().toLowerCase().slice(0, 64);
  const masked = groups.map((g, i) => {
    const keep = Math.min(16, Math.max(0, prefixLength - i * 16));
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${masked.map((g) => g.toString(16)).join(':')}/${prefixLength}`;
}

/** Places a named value of the statement being built: its `$n`. */
type At = (name: string) => string;

/**
 * The text and bound values of a statement written with named values (`at('since')`): each
 * value is bound once, numbered in the order the text first uses it (PostgreSQL refuses a bound
 * value that the text does not use, and the scopes use different ones).
 */
function named(values: Record<string, unknown>, sql: (at: At) => string): [string, unknown[]] {
  const { values: bind, param } = sqlParams();
  const placed = new Map<string, string>();
  const at: At = (name) => {
    if (!(name in values)) throw new Error(`login throttle: no value named ${name}`);
    let placeholder = placed.get(name);
    if (placeholder === undefined) {
      placeholder = param(values[name]);
      placed.set(name, placeholder);
    }
    return placeholder;
  };
  const text = sql(at);
  return [text, bind];
}

/** The login-log rows a limit counts (a condition on `surface`, `account`, `addressKey`). */
type Scope = (at: At) => string;
type ScopeValues = { surface: Surface; account: string; addressKey: string };

/**
 * Seconds until fewer than `limit` failures of the scope remain in the window (the window
 * slides, and only failures count, so this is when the scope is free again unless it fails
 * more). 0 if it already is.
 */
async function secondsUntilBelow(deps: DomainDeps, scope: Scope, values: ScopeValues, limit: number, since: Date, ownId: number): Promise<number> {
  const row = await sqlOne<{ created_at: Date }>(
    deps,
    ...named(
      { ...values, since, ownId, offset: limit - 1 },
      (at) => `SELECT created_at FROM login_logs
        WHERE ${scope(at)} AND ${FAILURE_SQL} AND created_at >= ${at('since')} AND id <> ${at('ownId')}
        ORDER BY created_at DESC OFFSET ${at('offset')} LIMIT 1`,
    ),
  );
  if (!row) return 0;
  const windowMs = deps.config.loginThrottle.windowSeconds * 1000;
  return Math.max(0, (new Date(row.created_at).getTime() + windowMs - Date.now()) / 1000);
}

type Counts = { pair: number; account: number; address: number };

/**
 * Opens the attempt's login-log row, then refuses it (42900) if its address, or its account
 * from its address, has failed too often within the sliding window:
 * - per account and address together: LOGIN_MAX_FAILURES_PER_ACCOUNT;
 * - per address over every account: LOGIN_MAX_FAILURES_PER_IP;
 * - once the account has LOGIN_MAX_FAILURES_PER_ACCOUNT_GLOBAL failures from all addresses
 *   together (distributed guessing), each address gets one guess per window on it.
 * Whether an attempt is refused therefore depends only on what its own address did: the owner
 * of an account logs in from a clean address whatever others send. A refused attempt is logged
 * as 'throttled', never verifies the password and never counts. Counted in PostgreSQL so that
 * every API instance sees the same numbers.
 *
 * Attempts in progress: an attempt is let through at once when even counting every attempt in
 * progress as a failure keeps it under the limits (the usual case). Otherwise it waits until the
 * earlier attempts in progress on its account or address have their outcome, and is then decided
 * on real failures alone: a burst of parallel guesses gets no more than the limit verified (each
 * one waits for the ones before it), and twenty colleagues signing in at once from one office
 * are all let in. The 42900 message names failures only when there were failures.
 */
export async function beginLoginAttempt(deps: DomainDeps, surface: Surface, account: string, meta: RequestMeta): Promise<LoginAttempt> {
  const limits = deps.config.loginThrottle;
  const addressKey = throttleAddressKey(meta.ip, limits.ipv6PrefixLength);
  const row = await deps.db.models.LoginLog.create({
    surface,
    account: account.slice(0, 191),
    subject_id: null,
    ip: meta.ip.slice(0, 64),
    address_key: addressKey,
    user_agent: meta.userAgent.slice(0, 255),
    success: false,
    reason: 'pending',
  });
  const attempt: LoginAttempt = { id: row.id, surface, account: row.account };
  const since = new Date(row.created_at.getTime() - limits.windowSeconds * 1000);
  const scopeValues: ScopeValues = { surface, account: row.account, addressKey };
  const pairScope: Scope = (at) => `surface = ${at('surface')} AND account = ${at('account')} AND address_key = ${at('addressKey')}`;
  const accountScope: Scope = (at) => `surface = ${at('surface')} AND account = ${at('account')}`;
  const addressScope: Scope = (at) => `address_key = ${at('addressKey')}`;
  const values = { ...scopeValues, since, ownId: row.id };
  const eitherScope: Scope = (at) => `((${accountScope(at)}) OR (${addressScope(at)}))`;

  /** Rows matching `condition` per scope, in the window, other than this attempt's own. */
  const count = async (condition: Scope): Promise<Counts> => {
    const counts = await sqlOne<Counts>(
      deps,
      ...named(
        values,
        (at) => `SELECT count(*) FILTER (WHERE ${pairScope(at)})::int AS pair,
                count(*) FILTER (WHERE ${accountScope(at)})::int AS account,
                count(*) FILTER (WHERE ${addressScope(at)})::int AS address
           FROM login_logs
          WHERE ${condition(at)} AND created_at >= ${at('since')} AND id <> ${at('ownId')} AND ${eitherScope(at)}`,
      ),
    );
    return { pair: counts?.pair ?? 0, account: counts?.account ?? 0, address: counts?.address ?? 0 };
  };
  const over = (counts: Counts) => {
    const underAttack = counts.account >= limits.maxFailuresPerAccountGlobal;
    return {
      underAttack,
      // An unknown address ('') is not one client: only the per-pair rule applies to it.
      address: addressKey !== '' && counts.address >= limits.maxFailuresPerIp,
      pair: counts.pair >= (underAttack ? 1 : limits.maxFailuresPerAccount),
    };
  };
  const isOver = (counts: Counts) => {
    const o = over(counts);
    return o.address || o.pair;
  };

  if (!isOver(await count(() => GUESS_SQL))) return attempt;
  let failures = await count(() => FAILURE_SQL);
  let undecided = false;
  if (!isOver(failures)) {
    // Over only because of attempts in progress: wait for the earlier ones to finish, then decide
    // on failures. Earlier attempts still unfinished after the wait (a crashed request) count.
    await waitForEarlierAttempts(deps, eitherScope, values);
    failures = await count(() => FAILURE_SQL);
    undecided = !isOver(failures);
    if (undecided && !isOver(await count((at) => `(${FAILURE_SQL} OR (reason = 'pending' AND id < ${at('ownId')}))`))) return attempt;
  }

  await settleLoginAttempt(deps, attempt, { success: false, reason: 'throttled', subjectId: null });
  if (undecided) throw new AppError(ErrorCode.TOO_MANY_REQUESTS, '登录尝试过于频繁，请稍后再试');
  const { underAttack, address: addressThrottled, pair: pairThrottled } = over(failures);
  let wait = 0;
  if (addressThrottled) wait = await secondsUntilBelow(deps, addressScope, scopeValues, limits.maxFailuresPerIp, since, row.id);
  if (pairThrottled) {
    const belowPairLimit =
      failures.pair >= limits.maxFailuresPerAccount ? await secondsUntilBelow(deps, pairScope, scopeValues, limits.maxFailuresPerAccount, since, row.id) : 0;
    let pairWait = belowPairLimit;
    if (underAttack) {
      // Free once this address's own failures have all left the window, or once the account is
      // below the global ceiling again and this address below the per-pair limit.
      const clean = await secondsUntilBelow(deps, pairScope, scopeValues, 1, since, row.id);
      const calm = await secondsUntilBelow(deps, accountScope, scopeValues, limits.maxFailuresPerAccountGlobal, since, row.id);
      pairWait = Math.min(clean, Math.max(belowPairLimit, calm));
    }
    wait = Math.max(wait, pairWait);
  }
  const minutes = Math.max(1, Math.ceil(wait / 60));
  throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `登录失败次数过多，请 ${minutes} 分钟后再试`);
}

/** Waits (bounded) until no earlier attempt on the account or address is still in progress. */
async function waitForEarlierAttempts(deps: DomainDeps, eitherScope: Scope, values: ScopeValues & { ownId: number }): Promise<void> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  const fresh = new Date(Date.now() - SETTLE_WAIT_MS);
  for (let pause = SETTLE_POLL_MS; ; pause = Math.min(pause * 2, SETTLE_POLL_MAX_MS)) {
    const open = await sqlOne<{ id: number }>(
      deps,
      ...named(
        { ...values, fresh },
        (at) => `SELECT id FROM login_logs
          WHERE reason = 'pending' AND id < ${at('ownId')} AND created_at >= ${at('fresh')} AND ${eitherScope(at)} LIMIT 1`,
      ),
    );
    if (!open || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * Failed password guesses on an account since its previous successful login, and from how many
 * addresses: written on the success row, so the login log shows the owner (and the admins) that
 * someone was guessing.
 */
async function failuresSinceLastLogin(deps: DomainDeps, surface: Surface, subjectId: number, ownId: number) {
  const row = await sqlOne<{ failures: number; addresses: number }>(
    deps,
    `SELECT count(*)::int AS failures, count(DISTINCT ip)::int AS addresses
       FROM login_logs
      WHERE surface = $1 AND subject_id = $2 AND reason = 'bad_password' AND id <> $3
        AND id > COALESCE((SELECT max(id) FROM login_logs
                            WHERE surface = $1 AND subject_id = $2 AND success AND id <> $3), 0)`,
    [surface, subjectId, ownId],
  );
  return { failures: row?.failures ?? 0, addresses: row?.addresses ?? 0 };
}

/**
 * Writes the attempt's outcome on its row. A success after failed guesses is recorded as
 * `after_failures:N,addresses:M` (N failed passwords since the previous successful login, from
 * M addresses), after the outcome's own reason if it has one (`totp;after_failures:…`). Guarded
 * on 'pending' so an outcome is written once.
 */
export async function settleLoginAttempt(deps: DomainDeps, attempt: LoginAttempt, outcome: LoginOutcome): Promise<void> {
  let reason = outcome.reason;
  if (outcome.success && outcome.subjectId !== null) {
    const { failures, addresses } = await failuresSinceLastLogin(deps, attempt.surface, outcome.subjectId, attempt.id);
    if (failures > 0) reason = [outcome.reason, `after_failures:${failures},addresses:${addresses}`].filter(Boolean).join(';');
  }
  await deps.db.models.LoginLog.update(
    { success: outcome.success, reason, subject_id: outcome.subjectId },
    { where: { id: attempt.id, reason: 'pending' } },
  );
}
