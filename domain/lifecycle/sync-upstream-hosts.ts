import { AppError } from '../../lib/errors.js';
import { parseDateTime } from '../../lib/time.js';
import { sqlOne, sqlRows, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { invokeSupplierPlugin } from '../suppliers/supplier-plugin.js';
import { throwIfCancelled } from '../../lib/cancellation.js';

/** A whole host list may take many pages of 100; the plugin pages it in one action. */
const HOST_LIST_TIMEOUT_MS = 120_000;

/** Upstream status of a service whose host the complete host list no longer carries. */
export const MISSING_HOST_STATUS = 'missing';

/** Bound services read, compared and written per statement (keyset on the service id). */
const SYNC_BATCH = 1000;

/**
 * One supplier's active or suspended services on upstream hosts, after service id `$2`, `$3` at
 * a time: through `service_upstream_bindings_supplier_service_idx` (supplier, service; migration
 * 0035) and the services' primary key, never a scan of every binding. The key bound is written
 * on both sides of the join: PostgreSQL does not carry `>` across `s.id = b.service_id`, and a
 * merge join then read the services' primary key from its start on every batch.
 */
const BOUND_SERVICES = statement(
  `SELECT s.id, b.upstream_host_id, s.upstream_status, s.ip, s.assigned_ips, s.upstream_due_at
     FROM service_upstream_bindings b JOIN services s ON s.id = b.service_id
    WHERE b.supplier_id = $1 AND b.upstream_host_id IS NOT NULL AND b.service_id > $2 AND s.id > $2 AND s.status IN ('active', 'suspended')
    ORDER BY b.service_id LIMIT $3`,
);

const COUNT_BOUND = statement(
  `SELECT count(*)::int AS n FROM service_upstream_bindings b JOIN services s ON s.id = b.service_id
    WHERE b.supplier_id = $1 AND b.upstream_host_id IS NOT NULL AND s.status IN ('active', 'suspended')`,
);

type BoundService = {
  id: number;
  upstream_host_id: string;
  upstream_status: string;
  ip: string;
  assigned_ips: string[];
  upstream_due_at: Date | null;
};

type ListedHost = { id: number; status: string; ip: string; assigned_ips: string[] | null; next_due_at: string | null };

/** One supplier's line of the summary: counts only, and our Chinese message when the poll failed. */
export type SupplierSyncLine = {
  supplier_id: number;
  supplier_code: string;
  status: 'ok' | 'failed';
  hosts: number;
  pages: number;
  services: number;
  changed: number;
  missing: number;
  error: string | null;
};

type Change = { id: number; upstream_status: string; ip: string; assigned_ips: string[]; upstream_due_at: Date | null };

function readHosts(data: Record<string, unknown>): ListedHost[] {
  const hosts = Array.isArray(data['hosts']) ? data['hosts'] : [];
  return hosts.filter((h): h is ListedHost => typeof h === 'object' && h !== null && Number.isInteger((h as { id?: unknown }).id));
}

function sameIps(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((ip, i) => ip === b[i]);
}

function sameTime(a: Date | null, b: Date | null): boolean {
  return (a?.getTime() ?? null) === (b?.getTime() ?? null);
}

/** Writes the polled fields of every listed service (and the poll time) in one statement per chunk. */
async function writeChanges(deps: DomainDeps, changes: Change[]): Promise<void> {
  for (let i = 0; i < changes.length; i += 500) {
    const chunk = changes.slice(i, i + 500);
    await sqlRows(
      deps,
      `UPDATE services s SET upstream_status = u.upstream_status, ip = u.ip, assigned_ips = u.assigned_ips,
              upstream_due_at = u.upstream_due_at, upstream_synced_at = now(), updated_at = now()
         FROM unnest($1::int[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[]) AS u(id, upstream_status, ip, assigned_ips, upstream_due_at)
        WHERE s.id = u.id RETURNING s.id`,
      [
        chunk.map((c) => c.id),
        chunk.map((c) => c.upstream_status.slice(0, 32)),
        chunk.map((c) => c.ip.slice(0, 64)),
        chunk.map((c) => JSON.stringify(c.assigned_ips)),
        chunk.map((c) => c.upstream_due_at),
      ],
    );
  }
}

async function recordEvents(deps: DomainDeps, events: Array<{ serviceId: number; status: 'failed' | 'info'; stage: string; message: string; detail: Record<string, unknown> }>) {
  if (events.length === 0) return;
  await sqlRows(
    deps,
    `INSERT INTO service_events (service_id, kind, stage, status, message, detail, operator_type)
     SELECT e.service_id, 'sync', e.stage, e.status, e.message, e.detail, 'system'
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) AS e(service_id, stage, status, message, detail)
     RETURNING id`,
    [
      events.map((e) => e.serviceId),
      events.map((e) => e.stage),
      events.map((e) => e.status),
      events.map((e) => e.message.slice(0, 255)),
      events.map((e) => JSON.stringify(e.detail)),
    ],
  );
}

/**
 * One supplier: its whole host list (`upstream.host_list`, pages of limit=100, counted from the
 * upstream's total or read until a short page), then for every active or suspended service bound to one of its hosts: upstream status,
 * IP, assigned IPs, the upstream's due date and the poll time. A service whose host the complete
 * list no longer carries gets upstream status `missing` and one event; a status change gets an
 * event too (not the first poll). An incomplete list (hosts changed while paging) marks nothing missing.
 */
async function syncSupplier(deps: DomainDeps, supplier: { id: number; code: string }): Promise<SupplierSyncLine> {
  const line: SupplierSyncLine = { supplier_id: supplier.id, supplier_code: supplier.code, status: 'ok', hosts: 0, pages: 0, services: 0, changed: 0, missing: 0, error: null };
  const failed = async (error: string): Promise<SupplierSyncLine> => {
    const counted = await sqlOne<{ n: number }>(deps, COUNT_BOUND, [supplier.id]);
    return { ...line, services: counted?.n ?? 0, status: 'failed', error };
  };
  let result;
  try {
    result = await invokeSupplierPlugin(deps, supplier.id, { action: 'upstream.host_list', timeoutMs: HOST_LIST_TIMEOUT_MS });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return failed(error.message);
  }
  if (!result.success) return failed(result.message);
  const hosts = new Map(readHosts(result.data).map((h) => [h.id, h]));
  line.hosts = hosts.size;
  line.pages = typeof result.data['pages'] === 'number' ? result.data['pages'] : 0;
  const complete = result.data['complete'] === true;

  for (let last = 0; ; ) {
    throwIfCancelled();
    const bound = await sqlRows<BoundService>(deps, BOUND_SERVICES, [supplier.id, last, SYNC_BATCH]);
    line.services += bound.length;
    const changes: Change[] = [];
    const events: Parameters<typeof recordEvents>[1] = [];
    for (const service of bound) {
      const hostId = Number(service.upstream_host_id);
      const host = hosts.get(hostId);
      if (!host) {
        if (!complete || service.upstream_status === MISSING_HOST_STATUS) continue;
        line.missing += 1;
        line.changed += 1;
        changes.push({ ...service, upstream_status: MISSING_HOST_STATUS });
        events.push({
          serviceId: service.id,
          status: 'failed',
          stage: 'host_missing',
          message: `上游主机列表中已找不到该服务的主机（主机 ID ${hostId}），请联系供应商核实`,
          detail: { upstream_host_id: hostId, previous_status: service.upstream_status },
        });
        continue;
      }
      const next: Change = {
        id: service.id,
        upstream_status: host.status,
        ip: host.ip,
        assigned_ips: host.assigned_ips ?? service.assigned_ips,
        upstream_due_at: host.next_due_at ? parseDateTime(host.next_due_at) : null,
      };
      const changed =
        next.upstream_status !== service.upstream_status ||
        next.ip !== service.ip ||
        !sameIps(next.assigned_ips, service.assigned_ips) ||
        !sameTime(next.upstream_due_at, service.upstream_due_at);
      if (changed) line.changed += 1;
      if (service.upstream_status !== '' && next.upstream_status !== service.upstream_status) {
        events.push({
          serviceId: service.id,
          status: 'info',
          stage: 'host_status',
          message: `上游主机状态由 ${service.upstream_status} 变为 ${next.upstream_status}`,
          detail: { upstream_host_id: hostId, previous_status: service.upstream_status, upstream_status: next.upstream_status },
        });
      }
      changes.push(next);
    }
    await writeChanges(deps, changes);
    await recordEvents(deps, events);
    if (bound.length < SYNC_BATCH) return line;
    last = bound[bound.length - 1]!.id;
  }
}

/**
 * Polls every supplier that has services on upstream hosts (no webhooks exist: spec "Events").
 * One supplier failing (unreachable, refused, plugin gone) is recorded in its line and never
 * stops the others. The summary is one line per supplier, counts only.
 */
export async function syncUpstreamHosts(deps: DomainDeps): Promise<SupplierSyncLine[]> {
  const suppliers = await sqlRows<{ id: number; code: string }>(
    deps,
    // Per supplier, the first bound living service found through the binding index (not a join of every binding).
    `SELECT p.id, p.code FROM suppliers p
      WHERE EXISTS (SELECT 1 FROM service_upstream_bindings b JOIN services s ON s.id = b.service_id
                     WHERE b.supplier_id = p.id AND b.upstream_host_id IS NOT NULL AND s.status IN ('active', 'suspended'))
      ORDER BY p.id`,
    [],
  );
  const lines: SupplierSyncLine[] = [];
  for (const supplier of suppliers) {
    try {
      lines.push(await syncSupplier(deps, supplier));
    } catch (error) {
      deps.logger.error({ err: error, supplier: supplier.code }, 'host sync of a supplier failed');
      lines.push({ supplier_id: supplier.id, supplier_code: supplier.code, status: 'failed', hosts: 0, pages: 0, services: 0, changed: 0, missing: 0, error: '同步失败，请查看系统日志' });
    }
  }
  return lines;
}
