import { pgErrorOf } from '../../../db/pg-errors.js';
import { sqlOne, statement } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';

const HOST_ONCE = 'service_upstream_bindings_host_once';

const HOLDER = statement(
  `SELECT b.service_id FROM service_upstream_bindings b
     JOIN service_upstream_bindings mine ON mine.service_id = $1 AND b.supplier_id = mine.supplier_id
    WHERE b.upstream_host_id = $2 AND b.service_id <> $1
    LIMIT 1`,
);

/**
 * The upstream answered a host id that another of our services already holds (an upstream that
 * lost its state and counts its hosts from the start again, or one that reuses ids). Binding it
 * twice would give one customer another's machine; retrying cannot change the upstream's answer.
 * So the attempt stops at once as a permanent failure whose Chinese reason names the host and the
 * service holding it (the admin decides); any other error is given back unchanged.
 */
export async function hostTakenError(deps: DomainDeps, serviceId: number, hostId: number, err: unknown): Promise<unknown> {
  const pg = pgErrorOf(err);
  if (pg?.code !== '23505' || pg.constraint !== HOST_ONCE) return err;
  const holder = await sqlOne<{ service_id: number }>(deps, HOLDER, [serviceId, hostId]).catch(() => null);
  const held = holder ? `已被本平台服务 #${holder.service_id} 占用` : '已被本平台的另一项服务占用';
  return new UpstreamStepError(
    'permanent',
    'upstream_host_taken',
    `上游分配的主机 #${hostId} ${held}，不能重复绑定（上游可能已重置或重复分配了主机编号）。请在上游核对该订单与主机后，再重试或取消本次开通`,
  );
}
