import { AppError } from '../../../lib/errors.js';
import { inTransaction, sqlOne, sqlRows } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { invokeSupplierPlugin } from '../../suppliers/supplier-plugin.js';
import type { TaskRunContext } from '../../tasks/types.js';
import { compareSupplier, type BoundService, type FailoverAttempt, type Finding, type UpstreamBill, type UpstreamHost } from './compare.js';
import { BILL_KINDS, FINDING_KIND_LABELS, HOST_KINDS, LOUD_KINDS } from './kinds.js';
import { raiseAdminAlert } from '../alerts.js';
import type { ReconciliationFindingKind, ReconciliationRunRow } from '../../../db/models/reconciliation.js';

/** A whole list may take many pages of 100; the plugin pages it in one action. */
const LIST_TIMEOUT_MS = 120_000;

/** One supplier's line of the task summary: counts only, and our Chinese message when it failed. */
export type ReconcileLine = Pick<
  ReconciliationRunRow,
  'supplier_id' | 'hosts_compared' | 'bills_compared' | 'upstream_hosts' | 'upstream_bills' | 'local_services' | 'findings_seen' | 'findings_opened' | 'findings_resolved' | 'error'
> & { run_id: number; status: Exclude<ReconciliationRunRow['status'], 'running'> };

type ListRead = { ok: true; data: Record<string, unknown> } | { ok: false; message: string };

async function readList(deps: DomainDeps, supplierId: number, action: string): Promise<ListRead> {
  try {
    const result = await invokeSupplierPlugin(deps, supplierId, { action, timeoutMs: LIST_TIMEOUT_MS });
    return result.success ? { ok: true, data: result.data } : { ok: false, message: result.message };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, message: error.message };
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf<T>(data: Record<string, unknown>, key: string): T[] {
  const items = Array.isArray(data[key]) ? (data[key] as unknown[]) : [];
  return items.filter((h): h is T => isRecord(h) && Number.isSafeInteger(h['id']));
}

/** Paid bills among `bills` whose id neither a provisioning (its binding) nor a service order of this supplier recorded. */
async function unmatchedPaid(deps: DomainDeps, supplierId: number, bills: UpstreamBill[]): Promise<UpstreamBill[]> {
  const paid = bills.filter((b) => b.status === 'paid');
  if (paid.length === 0) return [];
  const rows = await sqlRows<{ id: string }>(
    deps,
    `SELECT u.id::text AS id FROM unnest($2::bigint[]) AS u(id)
      WHERE NOT EXISTS (SELECT 1 FROM service_upstream_bindings b WHERE b.supplier_id = $1 AND b.upstream_invoice_id = u.id)
        AND NOT EXISTS (SELECT 1 FROM service_orders o WHERE o.supplier_id = $1 AND o.upstream_invoice_id = u.id)`,
    [supplierId, paid.map((b) => b.id)],
  );
  const unmatched = new Set(rows.map((r) => Number(r.id)));
  return paid.filter((b) => unmatched.has(b.id));
}

type AttemptRow = Omit<FailoverAttempt, 'upstream_order_id' | 'upstream_invoice_id' | 'upstream_host_id'> & {
  upstream_order_id: string | null;
  upstream_invoice_id: string | null;
  upstream_host_id: string | null;
};

/** What provisionings that failed over left at this supplier (`service_upstream_attempts`, migration 0048). */
async function failoverAttempts(deps: DomainDeps, supplierId: number): Promise<FailoverAttempt[]> {
  const rows = await sqlRows<AttemptRow>(
    deps,
    `SELECT a.service_id, s.status AS service_status, s.supplier_id AS delivered_by, a.upstream_order_id::text AS upstream_order_id,
            a.upstream_invoice_id::text AS upstream_invoice_id, a.upstream_host_id::text AS upstream_host_id, a.code, a.reason, a.created_at AS left_at
       FROM service_upstream_attempts a JOIN services s ON s.id = a.service_id
      WHERE a.supplier_id = $1
      ORDER BY a.id`,
    [supplierId],
  );
  const id = (value: string | null) => (value === null ? null : Number(value));
  return rows.map((r) => ({ ...r, upstream_order_id: id(r.upstream_order_id), upstream_invoice_id: id(r.upstream_invoice_id), upstream_host_id: id(r.upstream_host_id) }));
}

/**
 * Records the run's findings: new ones open, seen ones get `last_seen_at` and this run (a resolved
 * one seen again opens again), then every finding of a kind this run fully compared that it did
 * not see is resolved by the system. One transaction with the run's own row.
 */
async function recordFindings(deps: DomainDeps, supplierId: number, runId: number, findings: Finding[], comparedKinds: string[]) {
  return inTransaction(deps, async (tx) => {
    let opened = 0;
    if (findings.length > 0) {
      const rows = await sqlRows<{ id: string; kind: ReconciliationFindingKind; subject_key: string; times_seen: number; inserted: boolean; reopened: boolean }>(
        deps,
        `WITH before AS (
           SELECT kind, subject_key FROM reconciliation_findings WHERE supplier_id = $1 AND state = 'resolved'
         ), up AS (
           INSERT INTO reconciliation_findings AS r
                  (supplier_id, kind, subject_key, service_id, upstream_host_id, upstream_bill_id, amount, ours, theirs, last_run_id)
           SELECT $1, f.kind, f.subject_key, f.service_id, f.upstream_host_id, f.upstream_bill_id, f.amount, f.ours, f.theirs, $2
             FROM unnest($3::text[], $4::text[], $5::int[], $6::bigint[], $7::bigint[], $8::numeric[], $9::jsonb[], $10::jsonb[])
                  AS f(kind, subject_key, service_id, upstream_host_id, upstream_bill_id, amount, ours, theirs)
           ON CONFLICT (supplier_id, kind, subject_key) DO UPDATE SET
             service_id = EXCLUDED.service_id, upstream_host_id = EXCLUDED.upstream_host_id, upstream_bill_id = EXCLUDED.upstream_bill_id,
             amount = EXCLUDED.amount, ours = EXCLUDED.ours, theirs = EXCLUDED.theirs,
             last_seen_at = now(), last_run_id = EXCLUDED.last_run_id, times_seen = r.times_seen + 1,
             state = CASE WHEN r.state = 'resolved' THEN 'open' ELSE r.state END,
             resolved_at = CASE WHEN r.state = 'resolved' THEN NULL ELSE r.resolved_at END,
             resolved_by_type = CASE WHEN r.state = 'resolved' THEN NULL ELSE r.resolved_by_type END,
             resolved_by_id = CASE WHEN r.state = 'resolved' THEN NULL ELSE r.resolved_by_id END,
             acknowledged_at = CASE WHEN r.state = 'resolved' THEN NULL ELSE r.acknowledged_at END,
             acknowledged_by = CASE WHEN r.state = 'resolved' THEN NULL ELSE r.acknowledged_by END,
             updated_at = now()
           RETURNING r.id, r.kind, r.subject_key, r.times_seen, (xmax = 0) AS inserted
         )
         SELECT up.id::text AS id, up.kind, up.subject_key, up.times_seen, up.inserted, (before.kind IS NOT NULL) AS reopened
           FROM up LEFT JOIN before USING (kind, subject_key)`,
        [
          supplierId,
          runId,
          findings.map((f) => f.kind),
          findings.map((f) => f.subject_key),
          findings.map((f) => f.service_id),
          findings.map((f) => f.upstream_host_id),
          findings.map((f) => f.upstream_bill_id),
          findings.map((f) => f.amount),
          findings.map((f) => JSON.stringify(f.ours)),
          findings.map((f) => JSON.stringify(f.theirs)),
        ],
        tx,
      );
      const fresh = rows.filter((r) => r.inserted || r.reopened);
      opened = fresh.length;
      // One admin alert per finding opened (a finding reopened is a new change: its count of sightings names it).
      for (const r of fresh) {
        const loud = LOUD_KINDS.has(r.kind);
        if (loud) deps.logger.error({ supplier_id: supplierId, finding_id: r.id, kind: r.kind, subject: r.subject_key }, 'reconciliation: a supplier a provisioning failed over from holds something paid or running that nothing of ours accounts for');
        await raiseAdminAlert(
          deps,
          {
            kind: 'reconciliation',
            key: `reconciliation:${r.id}:${r.inserted ? 1 : r.times_seen}`,
            ...(loud ? { severity: 'critical' as const } : {}),
            title: `对账差异：${FINDING_KIND_LABELS[r.kind] ?? r.kind}`,
            message: `供应商 #${supplierId}：${r.subject_key}`,
            subject: { supplier_id: supplierId, finding_id: Number(r.id) },
          },
          tx,
        );
      }
    }
    const resolved =
      comparedKinds.length === 0
        ? []
        : await sqlRows<{ id: string }>(
            deps,
            `UPDATE reconciliation_findings SET state = 'resolved', resolved_at = now(), resolved_by_type = 'system', resolved_by_id = NULL, updated_at = now()
              WHERE supplier_id = $1 AND kind = ANY($2::text[]) AND state <> 'resolved' AND last_run_id <> $3
              RETURNING id`,
            [supplierId, comparedKinds, runId],
            tx,
          );
    return { opened, resolved: resolved.length };
  });
}

async function finishRun(deps: DomainDeps, line: ReconcileLine, note: string): Promise<void> {
  await sqlOne(
    deps,
    `UPDATE reconciliation_runs SET status = $2, finished_at = now(), hosts_compared = $3, bills_compared = $4, note = $5,
            upstream_hosts = $6, upstream_bills = $7, local_services = $8, findings_seen = $9, findings_opened = $10,
            findings_resolved = $11, error = $12
      WHERE id = $1 AND status = 'running' RETURNING id`,
    [
      line.run_id,
      line.status,
      line.hosts_compared,
      line.bills_compared,
      note.slice(0, 255),
      line.upstream_hosts,
      line.upstream_bills,
      line.local_services,
      line.findings_seen,
      line.findings_opened,
      line.findings_resolved,
      line.error?.slice(0, 255) ?? null,
    ],
  );
}

/**
 * One supplier: its host list and its bill list against our services bound to it and the upstream
 * bills our records name (docs/economics.md). Nothing but the findings and the run
 * row is written: no service, binding or order changes. A failed host list fails the run (no
 * finding is resolved); a bill list the upstream does not have (or that fails) leaves bills
 * uncompared, which the run says.
 */
export async function reconcileSupplier(deps: DomainDeps, supplierId: number, taskRunId: number | null = null): Promise<ReconcileLine> {
  const run = await sqlOne<{ id: string; started_at: Date }>(
    deps,
    `INSERT INTO reconciliation_runs (supplier_id, task_run_id) VALUES ($1, $2) RETURNING id, started_at`,
    [supplierId, taskRunId],
  );
  if (!run) throw new Error('reconciliation run not recorded');
  const line: ReconcileLine = {
    supplier_id: supplierId,
    run_id: Number(run.id),
    status: 'succeeded',
    hosts_compared: false,
    bills_compared: false,
    upstream_hosts: 0,
    upstream_bills: 0,
    local_services: 0,
    findings_seen: 0,
    findings_opened: 0,
    findings_resolved: 0,
    error: null,
  };
  let note = '';
  try {
    const hostList = await readList(deps, supplierId, 'upstream.host_list');
    if (!hostList.ok) {
      const failed = { ...line, status: 'failed' as const, error: `读取上游主机列表失败：${hostList.message}` };
      await finishRun(deps, failed, '主机列表读取失败，本次未比对');
      return failed;
    }
    const hosts = listOf<UpstreamHost>(hostList.data, 'hosts');
    line.upstream_hosts = hosts.length;
    line.hosts_compared = hostList.data['complete'] === true;

    const billList = await readList(deps, supplierId, 'upstream.bill_list');
    let unmatchedPaidBills: UpstreamBill[] | null = null;
    let billsComplete = false;
    if (!billList.ok) {
      note = `读取上游账单列表失败，本次未比对账单：${billList.message}`;
    } else if (billList.data['supported'] !== true) {
      note = '上游不提供账单列表，本次未比对账单';
    } else {
      const bills = listOf<UpstreamBill>(billList.data, 'bills').map((b) => ({ ...b, host_ids: Array.isArray(b.host_ids) ? b.host_ids : [] }));
      line.upstream_bills = bills.length;
      line.bills_compared = true;
      billsComplete = billList.data['complete'] === true;
      if (!billsComplete) note = '上游账单列表在翻页期间发生变化，未见到的账单差异本次不自动解决';
      unmatchedPaidBills = await unmatchedPaid(deps, supplierId, bills);
    }
    if (!line.hosts_compared) note = [note, '上游主机列表在翻页期间发生变化：未检查主机缺失，未见到的主机差异本次不自动解决'].filter(Boolean).join('；');

    const services = (
      await sqlRows<Omit<BoundService, 'upstream_host_id'> & { upstream_host_id: string }>(
        deps,
        `SELECT s.id AS service_id, s.status, s.next_due_at, s.hostname, s.product_name, b.upstream_host_id::text AS upstream_host_id
           FROM service_upstream_bindings b JOIN services s ON s.id = b.service_id
          WHERE b.supplier_id = $1 AND b.upstream_host_id IS NOT NULL
          ORDER BY s.id`,
        [supplierId],
      )
    ).map((s) => ({ ...s, upstream_host_id: Number(s.upstream_host_id) }));
    line.local_services = services.filter((s) => s.status === 'active').length;

    const attempts = await failoverAttempts(deps, supplierId);
    const findings = compareSupplier({ hosts, hostsComplete: line.hosts_compared, services, unmatchedPaidBills, attempts, now: run.started_at });
    const compared = [...(line.hosts_compared ? HOST_KINDS : []), ...(line.bills_compared && billsComplete ? BILL_KINDS : [])];
    const recorded = await recordFindings(deps, supplierId, line.run_id, findings, compared);
    line.findings_seen = findings.length;
    line.findings_opened = recorded.opened;
    line.findings_resolved = recorded.resolved;
    await finishRun(deps, line, note);
    return line;
  } catch (error) {
    deps.logger.error({ err: error, supplier_id: supplierId }, 'reconciliation of a supplier failed');
    const failed = { ...line, status: 'failed' as const, error: '对账失败，请查看系统日志' };
    await finishRun(deps, failed, note);
    return failed;
  }
}

/**
 * The daily reconciliation (task `upstream.reconcile`): every supplier with an upstream plugin,
 * one after another; one failing never stops the others. The summary is one line per supplier.
 */
export async function reconcileSuppliers(deps: DomainDeps, run?: Pick<TaskRunContext, 'taskRunId'>): Promise<ReconcileLine[]> {
  const suppliers = await sqlRows<{ id: number }>(deps, `SELECT id FROM suppliers WHERE plugin_id IS NOT NULL ORDER BY id`, []);
  const lines: ReconcileLine[] = [];
  for (const supplier of suppliers) lines.push(await reconcileSupplier(deps, supplier.id, run?.taskRunId ?? null));
  return lines;
}
