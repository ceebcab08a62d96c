import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { sqlOne } from '../../db/sql.js';
import { AppError, ErrorCode, forbidden, unauthenticated } from '../../lib/errors.js';
import type { SessionScope, Surface } from '../../db/models/auth-session.js';
import type { DomainDeps } from '../deps.js';
import { publishAuthChange } from './auth-events.js';
import type { AdminPrincipal, ClientPrincipal } from './principals.js';
import { type AccessClaims, signAccessToken, verifiedAccessClaims, verifyAccessToken } from './tokens.js';

export type IssuedToken = { access_token: string; token_type: 'Bearer'; expires_in: number };

export type RequestMeta = { ip: string; userAgent: string };

/**
 * Opens a session row and signs an access token bound to it; logout revokes the row. `scope`
 * 'enrol' limits the session to enrolling a second factor; `secondFactorAt` is when it proved one.
 */
export async function issueSession(
  deps: DomainDeps,
  surface: Surface,
  subjectId: number,
  meta: RequestMeta,
  transaction?: Transaction,
  options: { scope?: SessionScope; secondFactorAt?: Date | null } = {},
): Promise<IssuedToken> {
  const ttl = deps.config.accessTokenTtlSeconds;
  const expiresAt = new Date(Date.now() + ttl * 1000);
  const id = randomUUID();
  await deps.db.models.AuthSession.create(
    {
      id,
      surface,
      subject_id: subjectId,
      ip: meta.ip.slice(0, 64),
      user_agent: meta.userAgent.slice(0, 255),
      expires_at: expiresAt,
      scope: options.scope ?? 'full',
      second_factor_at: options.secondFactorAt ?? null,
    },
    { transaction },
  );
  const token = await signAccessToken(deps.config.secretKey, { surface, subjectId, sessionId: id }, expiresAt);
  return { access_token: token, token_type: 'Bearer', expires_in: ttl };
}

export async function revokeSession(deps: DomainDeps, sessionId: string): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    await deps.db.models.AuthSession.update({ revoked_at: new Date() }, { where: { id: sessionId, revoked_at: null }, transaction });
    await publishAuthChange(deps, { session_id: sessionId }, transaction);
  });
}

export async function revokeAllSessions(deps: DomainDeps, surface: Surface, subjectId: number, transaction?: Transaction) {
  await deps.db.models.AuthSession.update(
    { revoked_at: new Date() },
    { where: { surface, subject_id: subjectId, revoked_at: null }, transaction },
  );
  await publishAuthChange(deps, { surface, subject_id: subjectId }, transaction);
}

type AdminSessionRow = {
  revoked_at: Date | null;
  scope: SessionScope;
  expires_at: Date;
  id: number;
  username: string;
  status: string;
  role_code: string;
  is_super: boolean;
  permissions: string[];
};

type ClientSessionRow = {
  revoked_at: Date | null;
  expires_at: Date;
  id: number;
  status: string;
  email_verified_at: Date | null;
  is_verified: number;
};

function assertLive(row: { revoked_at: Date | null; expires_at: Date } | null): void {
  if (!row || row.revoked_at || row.expires_at.getTime() <= Date.now()) {
    throw unauthenticated('登录已失效，请重新登录');
  }
}

const WRONG_SURFACE = '当前账号类型无权访问此接口';

/** Resolves a bearer token to a live admin; one query joins session, account and role. */
export async function authenticateAdmin(deps: DomainDeps, token: string): Promise<AdminPrincipal> {
  const claims = await verifyAccessToken(deps.config.secretKey, token);
  if (claims.surface !== 'admin') throw forbidden(WRONG_SURFACE);
  const cached = deps.authCache?.get(claims.sessionId);
  if (cached?.kind === 'admin' && cached.id === claims.subjectId) return cached;
  return loadAdmin(deps, claims);
}

/**
 * As `authenticateAdmin`, answered without awaiting anything when the token was verified before
 * and its session's principal is cached (the access check of every admin request).
 */
export function adminFor(deps: DomainDeps, token: string): AdminPrincipal | Promise<AdminPrincipal> {
  const claims = verifiedAccessClaims(deps.config.secretKey, token);
  if (claims?.surface !== 'admin') return authenticateAdmin(deps, token);
  const cached = deps.authCache?.get(claims.sessionId);
  return cached?.kind === 'admin' && cached.id === claims.subjectId ? cached : loadAdmin(deps, claims);
}

async function loadAdmin(deps: DomainDeps, claims: AccessClaims): Promise<AdminPrincipal> {
  const ticket = deps.authCache?.ticket() ?? 0;
  const row = await sqlOne<AdminSessionRow>(
    deps,
    `SELECT s.revoked_at, s.expires_at, s.scope, a.id, a.username, a.status, r.code AS role_code, r.is_super, r.permissions
       FROM auth_sessions s
       JOIN admins a ON a.id = s.subject_id
       JOIN admin_roles r ON r.id = a.role_id
      WHERE s.id = $1 AND s.surface = 'admin' AND s.subject_id = $2`,
    [claims.sessionId, claims.subjectId],
  );
  assertLive(row);
  const admin = row as AdminSessionRow;
  if (admin.status !== 'active') throw new AppError(ErrorCode.FORBIDDEN, '账号已被禁用');
  const principal: AdminPrincipal = {
    kind: 'admin',
    id: admin.id,
    username: admin.username,
    roleCode: admin.role_code,
    isSuper: admin.is_super,
    permissions: admin.permissions,
    sessionId: claims.sessionId,
    sessionScope: admin.scope,
  };
  deps.authCache?.set(ticket, principal, admin.expires_at);
  return principal;
}

export async function authenticateClient(deps: DomainDeps, token: string): Promise<ClientPrincipal> {
  const claims = await verifyAccessToken(deps.config.secretKey, token);
  if (claims.surface !== 'client') throw forbidden(WRONG_SURFACE);
  const cached = deps.authCache?.get(claims.sessionId);
  if (cached?.kind === 'client' && cached.id === claims.subjectId) return cached;
  return loadClient(deps, claims);
}

/** As `authenticateClient`, answered without awaiting anything when token and principal are known (see `adminFor`). */
export function clientFor(deps: DomainDeps, token: string): ClientPrincipal | Promise<ClientPrincipal> {
  const claims = verifiedAccessClaims(deps.config.secretKey, token);
  if (claims?.surface !== 'client') return authenticateClient(deps, token);
  const cached = deps.authCache?.get(claims.sessionId);
  return cached?.kind === 'client' && cached.id === claims.subjectId ? cached : loadClient(deps, claims);
}

async function loadClient(deps: DomainDeps, claims: AccessClaims): Promise<ClientPrincipal> {
  const ticket = deps.authCache?.ticket() ?? 0;
  const row = await sqlOne<ClientSessionRow>(
    deps,
    `SELECT s.revoked_at, s.expires_at, u.id, u.status, u.email_verified_at, u.is_verified
       FROM auth_sessions s
       JOIN users u ON u.id = s.subject_id
      WHERE s.id = $1 AND s.surface = 'client' AND s.subject_id = $2`,
    [claims.sessionId, claims.subjectId],
  );
  assertLive(row);
  const user = row as ClientSessionRow;
  if (user.status !== 'active') throw new AppError(ErrorCode.FORBIDDEN, '账号已被禁用');
  const principal: ClientPrincipal = {
    kind: 'client',
    id: user.id,
    sessionId: claims.sessionId,
    emailVerified: user.email_verified_at !== null,
    isVerified: user.is_verified === 1,
  };
  deps.authCache?.set(ticket, principal, user.expires_at);
  return principal;
}

/**
 * Swaps the current session for a new one: the old token stops working at once. The new one
 * keeps the old one's scope and second-factor time (a refresh never widens a session).
 */
export async function refreshSession(
  deps: DomainDeps,
  surface: Surface,
  subjectId: number,
  sessionId: string,
  meta: RequestMeta,
): Promise<IssuedToken> {
  return deps.db.sequelize.transaction(async (transaction) => {
    const [revoked, [old]] = await deps.db.models.AuthSession.update(
      { revoked_at: new Date() },
      { where: { id: sessionId, revoked_at: null }, transaction, returning: true },
    );
    if (revoked !== 1 || !old) throw unauthenticated('登录已失效，请重新登录');
    await publishAuthChange(deps, { session_id: sessionId }, transaction);
    return issueSession(deps, surface, subjectId, meta, transaction, { scope: old.scope, secondFactorAt: old.second_factor_at });
  });
}
