import { sqlOne, sqlRows, statement } from '../../db/sql.js';
import { money, parseUpstreamAmount } from '../../lib/money.js';
import { AWAITING_UPSTREAM_FUNDS, type FundsCheck } from '../../workflows/upstream/contract.js';
import type { DomainDeps } from '../deps.js';
import { callSupplier, UpstreamStepError } from '../suppliers/supplier-call.js';
import { raiseAdminAlert } from './alerts.js';
import { supplierAvailability } from '../suppliers/health.js';

/**
 * Upstream funds (issue #29, docs/economics.md): the supplier balance read through the
 * plugin's `upstream.credit` action (`GET /cart/credit`) and kept in `supplier_balances`, the
 * check before each upstream payment (the workflow waits in `awaiting_upstream_funds` while it
 * answers short), and the funds alerts admins are told of once: admin alerts (`funds_short`,
 * `runway_short`) whose `detail` holds the episode (migration 0036; `supplier_funds_alerts` is no
 * longer read or written).
 */

/** The plugin action that reads the supplier account balance (plugins/upstream/upstream_finance/actions/registry.ts). */
export const CREDIT_ACTION = 'upstream.credit';

/**
 * Keeps a balance read and, when it covers what was asked (`$4`), closes the supplier's open
 * shortage (the next shortage is a new episode, told again). Answers the supplier's code.
 */
const SAVE_BALANCE = statement(
  `WITH saved AS (
     INSERT INTO supplier_balances (supplier_id, balance, currency, read_at, updated_at) VALUES ($1, $2, $3, now(), now())
     ON CONFLICT (supplier_id) DO UPDATE SET balance = EXCLUDED.balance, currency = EXCLUDED.currency, read_at = EXCLUDED.read_at, updated_at = now()
     RETURNING supplier_id),
   resolved AS (
     UPDATE admin_alerts SET detail = detail || jsonb_build_object('ended_at', now())
      WHERE $4::boolean AND kind = 'funds_short' AND detail ? 'supplier_id' AND (detail->>'ended_at') IS NULL AND detail->>'supplier_id' = $1::text
      RETURNING id)
   SELECT s.code, (SELECT count(*) FROM saved)::int AS saved, (SELECT count(*) FROM resolved)::int AS resolved FROM suppliers s WHERE s.id = $1`,
);

/** Reads a supplier's balance upstream (throws UpstreamStepError when it cannot). */
async function readCredit(deps: DomainDeps, supplierId: number, traceId?: string): Promise<{ balance: string; currency: string }> {
  const data = await callSupplier(deps, supplierId, CREDIT_ACTION, {}, traceId ? { traceId } : {});
  const balance = parseUpstreamAmount(data['balance']);
  if (balance === null) throw new UpstreamStepError('permanent', 'unexpected_response', '上游余额数据格式不正确');
  const currency = typeof data['currency'] === 'string' && /^[A-Z]{3}$/.test(data['currency']) ? data['currency'] : 'CNY';
  return { balance, currency };
}

/**
 * The rule of "the balance covers the bill": nothing to compare (balance unreadable, amount
 * unknown) counts as covering, the payment goes as before. The funds check and routing read it.
 */
export function balanceCovers(balance: string | null, amount: string | null): boolean {
  return balance === null || amount === null || money(balance).gte(amount);
}

/** Reads and keeps a supplier's balance; `covers`: the read covered what a check needed (closes an open shortage). */
export async function refreshSupplierBalance(deps: DomainDeps, supplierId: number, options: { traceId?: string; needed?: string | null } = {}): Promise<string> {
  const { balance, currency } = await readCredit(deps, supplierId, options.traceId);
  const covers = balanceCovers(balance, options.needed ?? null);
  await sqlOne<{ code: string }>(deps, SAVE_BALANCE, [supplierId, balance, currency, covers]);
  return balance;
}

/** The upstream work a funds check is for (where its alert points), and what the bill needs. */
export type FundsCheckInput = {
  supplierId: number;
  /** The upstream bill's amount; null when not known (the check is skipped, the payment goes as before). */
  amount: string | null;
  /** The upstream refused the payment for funds (the read raced another purchase): short whatever the read says. */
  refused: boolean;
  workflowId: string;
};

/**
 * The check before an upstream payment: the supplier balance read now against the bill. Short
 * (or the payment was refused for funds): the shortage is noted once per supplier and episode.
 * Nothing to compare (amount unknown, the balance unreadable): enough, and the payment goes as
 * before (a refusal for funds then still waits).
 */
export async function checkUpstreamFunds(deps: DomainDeps, input: FundsCheckInput): Promise<FundsCheck> {
  const amount = input.amount;
  if (amount === null && !input.refused) return { enough: true, balance: null, amount: null };
  let balance: string | null = null;
  // Supplier health (docs/fulfilment.md "Supplier health"): while the supplier's breaker is open
  // the balance is not asked for (the answer is the one of a read that failed); past its open
  // time this read is the half-open probe.
  const availability = await supplierAvailability(deps, input.supplierId);
  if (!availability.mayCall) {
    deps.logger.warn({ supplierId: input.supplierId, state: availability.state }, 'supplier balance not read before an upstream payment: the supplier is down (circuit open)');
  } else {
    try {
      balance = await refreshSupplierBalance(deps, input.supplierId, { traceId: input.workflowId, needed: input.refused ? null : amount });
    } catch (err) {
      deps.logger.warn({ err: err instanceof Error ? err.message : String(err), supplierId: input.supplierId }, 'supplier balance not read before an upstream payment');
    }
  }
  const enough = !input.refused && balanceCovers(balance, amount);
  if (!enough) await noteFundsShortage(deps, { supplierId: input.supplierId, balance, amount, workflowId: input.workflowId });
  return { enough, balance, amount };
}

/**
 * The admins' notice of a shortage, once per supplier and episode: an admin alert `funds_short`
 * whose detail is the episode (`admin_alerts_open_funds_short` lets one per supplier be open;
 * a balance read that covers the need ends it, so the next shortage is told again), read back by
 * GET /admin/economics/funds/alerts, and a warning in the log.
 */
export async function noteFundsShortage(
  deps: DomainDeps,
  input: { supplierId: number; balance: string | null; amount: string | null; workflowId: string },
): Promise<boolean> {
  const message =
    input.amount !== null && input.balance !== null
      ? `上游余额 ${input.balance} 元不足以支付账单 ${input.amount} 元，相关开通与订单等待充值后自动继续`
      : '上游拒绝支付：供应商余额不足，相关开通与订单等待充值后自动继续';
  const startedAt = new Date().toISOString();
  const raised = await raiseAdminAlert(deps, {
    kind: 'funds_short',
    key: `funds-short:${input.supplierId}:${startedAt}`,
    severity: 'critical',
    title: `供应商 #${input.supplierId} 上游余额不足`,
    message,
    subject: { supplier_id: input.supplierId, workflow_id: input.workflowId },
    detail: { supplier_id: input.supplierId, occasion: startedAt, balance: input.balance, needed: input.amount, workflow_id: input.workflowId, started_at: startedAt, ended_at: null },
  });
  if (!raised) return false;
  deps.logger.warn({ supplierId: input.supplierId, balance: input.balance, amount: input.amount, workflowId: input.workflowId }, 'upstream funds shortage: work waits for a top-up');
  return true;
}

/** SQL: provisionings and service orders waiting for funds, with their supplier. */
const WAITING_WORK = `
  SELECT b.supplier_id FROM services s JOIN service_upstream_bindings b ON b.service_id = s.id
   WHERE s.provisioning_stage = '${AWAITING_UPSTREAM_FUNDS}' AND s.status IN ('pending', 'provisioning', 'failed')
  UNION ALL
  SELECT o.supplier_id FROM service_orders o
   WHERE o.stage = '${AWAITING_UPSTREAM_FUNDS}' AND o.status IN ('pending', 'processing', 'awaiting_admin') AND o.supplier_id IS NOT NULL`;

/** The count of upstream work waiting for funds (dashboard, the `upstream_work_awaiting_funds` gauge at scrape time). */
export const AWAITING_FUNDS_COUNT_SQL = `SELECT count(*)::int AS n FROM (${WAITING_WORK}) w`;

/**
 * `upstream.balances` (every heartbeat): reads each active supplier's balance into
 * `supplier_balances` (the gauge `upstream_supplier_balance` reads them at scrape time); one
 * supplier failing does not stop the others. Reports the work awaiting funds.
 */
export async function refreshSupplierBalances(deps: DomainDeps): Promise<Record<string, unknown>> {
  const suppliers = await sqlRows<{ id: number }>(deps, `SELECT id FROM suppliers WHERE status = 'active' ORDER BY id`, []);
  let read = 0;
  const failed: number[] = [];
  for (const s of suppliers) {
    try {
      await refreshSupplierBalance(deps, s.id, { traceId: 'task:upstream.balances' });
      read += 1;
    } catch (err) {
      failed.push(s.id);
      deps.logger.warn({ err: err instanceof Error ? err.message : String(err), supplierId: s.id }, 'supplier balance not read');
    }
  }
  const waiting = await sqlOne<{ n: number }>(deps, AWAITING_FUNDS_COUNT_SQL, []);
  return { suppliers: suppliers.length, read, failed_supplier_ids: failed, awaiting_funds: waiting?.n ?? 0 };
}

/** One row of GET /admin/economics/funds. */
export type SupplierFundsRow = {
  supplier_id: number;
  code: string;
  name: string;
  balance: string | null;
  currency: string | null;
  read_at: Date | null;
  awaiting_funds: number;
  open_shortage: boolean;
  runway_days: number | null;
  runway_cost: string | null;
  runway_renewals: number | null;
  runway_estimated: number | null;
  runway_at: Date | null;
};

/** Per supplier: the last balance read, work waiting for funds, the last runway forecast. One page, by supplier id. */
export async function listSupplierFunds(deps: DomainDeps, query: { page: number; page_size: number }): Promise<{ rows: SupplierFundsRow[]; total: number }> {
  const [rows, counted] = await Promise.all([
    sqlRows<SupplierFundsRow>(
      deps,
      `WITH waiting AS (SELECT supplier_id, count(*)::int AS n FROM (${WAITING_WORK}) w GROUP BY supplier_id)
       SELECT s.id AS supplier_id, s.code, s.name, b.balance, b.currency, b.read_at, COALESCE(w.n, 0) AS awaiting_funds,
              EXISTS (SELECT 1 FROM admin_alerts a WHERE a.kind = 'funds_short' AND a.detail ? 'supplier_id' AND (a.detail->>'ended_at') IS NULL
                         AND a.detail->>'supplier_id' = s.id::text) AS open_shortage,
              b.runway_days, b.runway_cost, b.runway_renewals, b.runway_estimated, b.runway_at
         FROM suppliers s LEFT JOIN supplier_balances b ON b.supplier_id = s.id LEFT JOIN waiting w ON w.supplier_id = s.id
        ORDER BY s.id LIMIT $1 OFFSET $2`,
      [query.page_size, (query.page - 1) * query.page_size],
    ),
    sqlOne<{ total: number }>(deps, 'SELECT count(*)::int AS total FROM suppliers', []),
  ]);
  return { rows, total: counted?.total ?? 0 };
}

/** One row of GET /admin/economics/funds/alerts. */
export type FundsAlertRow = {
  id: number;
  supplier_id: number;
  kind: 'shortage' | 'runway';
  occasion: string;
  balance: string | null;
  needed: string | null;
  message: string;
  workflow_id: string | null;
  created_at: Date;
  resolved_at: Date | null;
};

/** The alert kind of each funds alert kind of the route (`shortage`, `runway`). */
const FUNDS_ALERT_KINDS = { shortage: 'funds_short', runway: 'runway_short' } as const;

/** The funds alerts (the admins' notices), newest first: the funds kinds of `admin_alerts`, the episode read from `detail`. */
export async function listFundsAlerts(
  deps: DomainDeps,
  query: { page: number; page_size: number; supplier_id?: number | undefined; kind?: string | undefined },
): Promise<{ rows: FundsAlertRow[]; total: number }> {
  const where = `WHERE kind IN ('funds_short', 'runway_short') AND detail ? 'supplier_id'
      AND ($1::text IS NULL OR detail->>'supplier_id' = $1::text) AND ($2::text IS NULL OR kind = $2)`;
  const filters = [query.supplier_id === undefined ? null : String(query.supplier_id), query.kind === undefined ? null : FUNDS_ALERT_KINDS[query.kind as keyof typeof FUNDS_ALERT_KINDS] ?? query.kind];
  const [rows, counted] = await Promise.all([
    sqlRows<FundsAlertRow>(
      deps,
      `SELECT id::int AS id, (detail->>'supplier_id')::int AS supplier_id, CASE kind WHEN 'funds_short' THEN 'shortage' ELSE 'runway' END AS kind,
              COALESCE(detail->>'occasion', '') AS occasion, detail->>'balance' AS balance, detail->>'needed' AS needed, message,
              detail->>'workflow_id' AS workflow_id, created_at, (detail->>'ended_at')::timestamptz AS resolved_at
         FROM admin_alerts ${where}
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [...filters, query.page_size, (query.page - 1) * query.page_size],
    ),
    sqlOne<{ total: number }>(deps, `SELECT count(*)::int AS total FROM admin_alerts ${where}`, filters),
  ]);
  return { rows, total: counted?.total ?? 0 };
}
