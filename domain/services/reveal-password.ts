import { userActor } from '../../lib/actor.js';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { requireSupplierData } from '../suppliers/upstream-result.js';
import { findServiceView } from './find-service.js';
import { recordServiceEvent } from './service-events.js';
import { invokeServiceUpstream } from './service-upstream.js';

/** Reveals allowed per service in a rolling hour; more is 42900 (and logged). */
export const PASSWORD_REVEALS_PER_HOUR = 10;

export type RevealedPassword = {
  service_id: number;
  username: string;
  password: string;
  source: 'local' | 'upstream';
};

async function revealsInLastHour(deps: DomainDeps, serviceId: number): Promise<number> {
  const rows = await sqlRows<{ n: string }>(
    deps,
    `SELECT count(*) AS n FROM service_events
      WHERE service_id = $1 AND kind = 'credential' AND stage = 'reveal' AND status = 'succeeded' AND created_at > now() - interval '1 hour'`,
    [serviceId],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The service's password for its owner, through this separate action only (the detail says
 * `has_password`). The password stored here (chosen at purchase, or set by a reinstall or
 * reset through our console) comes first; a bound host without one is asked upstream
 * (`upstream.host_credentials`). Every reveal writes a `credential` service event with the
 * user and address; at most PASSWORD_REVEALS_PER_HOUR per service and hour.
 */
export async function revealServicePassword(deps: DomainDeps, input: { serviceId: number; userId: number; ip: string }): Promise<RevealedPassword> {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  const operator = { type: 'user' as const, id: input.userId };
  if ((await revealsInLastHour(deps, service.id)) >= PASSWORD_REVEALS_PER_HOUR) {
    await recordServiceEvent(deps, { serviceId: service.id, kind: 'credential', stage: 'reveal', status: 'failed', message: '查看密码过于频繁，已拒绝', detail: { ip: input.ip }, operator });
    throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `查看密码过于频繁，每小时最多 ${PASSWORD_REVEALS_PER_HOUR} 次，请稍后再试`);
  }
  let password = '';
  let source: RevealedPassword['source'] = 'local';
  if (service.has_local_password) {
    const row = await deps.db.models.Service.findByPk(service.id, { attributes: ['id', 'password_sealed'] });
    password = row?.password_sealed ? deps.secretBox.open(row.password_sealed) : '';
  } else if (service.hostId > 0 && !service.console.read_only) {
    const result = await invokeServiceUpstream(deps, service.id, { action: 'upstream.host_credentials', actor: userActor(input.userId) });
    const credentials = requireSupplierData(result)['credentials'] as { password?: unknown } | undefined;
    password = typeof credentials?.password === 'string' ? credentials.password : '';
    source = 'upstream';
  }
  if (!password) throw notFound('该服务暂无可查看的密码');
  await recordServiceEvent(deps, { serviceId: service.id, kind: 'credential', stage: 'reveal', status: 'succeeded', message: '用户查看了服务密码', detail: { source, ip: input.ip }, operator });
  deps.logger.info({ serviceId: service.id, userId: input.userId, source }, 'service password revealed');
  return { service_id: service.id, username: service.username, password, source };
}
