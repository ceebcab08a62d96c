import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';
import { FINDING_HOLDS_SQL } from './hold.js';

export const FINDING_STATES = ['open', 'acknowledged', 'resolved'] as const;
export type FindingState = (typeof FINDING_STATES)[number];
export const FINDING_KINDS = ['price', 'renewal'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export type PriceFinding = {
  id: string;
  kind: FindingKind;
  product_id: number;
  product_name: string;
  /** The further binding it was seen on (`product_upstream_alternates`); null for the first binding. */
  binding_id: number | null;
  /** The binding's supplier; null only for a finding the release before wrote. */
  supplier_id: number | null;
  supplier_name: string | null;
  service_id: number | null;
  billing_period: string;
  option_key: string;
  option_label: string;
  old_upstream_price: string | null;
  new_upstream_price: string;
  our_price: string;
  margin_percent: string | null;
  margin_floor_percent: string;
  below_cost: boolean;
  /** The product is held now by this finding (`FINDING_HOLDS_SQL`) and `economics.hold_below_cost` is on. */
  held: boolean;
  state: FindingState;
  acknowledged_by: number | null;
  acknowledged_at: Date | null;
  resolved_at: Date | null;
  created_at: Date;
};

export type FindingFilters = { state?: FindingState | undefined; product_id?: number | undefined; kind?: FindingKind | undefined; supplier_id?: number | undefined };

const COLUMNS = `f.id::text AS id, f.kind, f.product_id, p.name AS product_name, f.binding_id, f.supplier_id,
  (SELECT su.name FROM suppliers su WHERE su.id = f.supplier_id) AS supplier_name, f.service_id, f.billing_period, f.option_key, f.option_label,
  f.old_upstream_price, f.new_upstream_price, f.our_price, f.margin_percent, f.margin_floor_percent, f.below_cost,
  ($1::boolean AND ${FINDING_HOLDS_SQL}) AS held,
  f.state, f.acknowledged_by, f.acknowledged_at, f.resolved_at, f.created_at`;

function where(filters: FindingFilters, param: (value: unknown) => string): string {
  const parts = ['TRUE'];
  if (filters.state) parts.push(`f.state = ${param(filters.state)}`);
  if (filters.product_id) parts.push(`f.product_id = ${param(filters.product_id)}`);
  if (filters.kind) parts.push(`f.kind = ${param(filters.kind)}`);
  if (filters.supplier_id) parts.push(`f.supplier_id = ${param(filters.supplier_id)}`);
  return parts.join(' AND ');
}

async function holdOn(deps: DomainDeps): Promise<boolean> {
  return (await readSettings(deps, economicsSettings)).hold_below_cost;
}

/** The admin list of findings, newest first (filters: state, product, kind, supplier). */
export async function listPriceFindings(deps: DomainDeps, query: FindingFilters & { page: number; page_size: number }): Promise<{ rows: PriceFinding[]; total: number }> {
  const { values, param } = sqlParams();
  param(await holdOn(deps));
  const filter = where(query, param);
  const limit = param(query.page_size);
  const offset = param((query.page - 1) * query.page_size);
  const rows = await sqlRows<PriceFinding>(
    deps,
    `SELECT ${COLUMNS} FROM upstream_price_findings f JOIN products p ON p.id = f.product_id
      WHERE ${filter} ORDER BY f.id DESC LIMIT ${limit} OFFSET ${offset}`,
    values,
  );
  const counted = sqlParams();
  const total = await sqlOne<{ total: number }>(deps, `SELECT count(*)::int AS total FROM upstream_price_findings f WHERE ${where(query, counted.param)}`, counted.values);
  return { rows, total: total?.total ?? 0 };
}

export type FindingSummary = {
  total: number;
  by_state: Record<FindingState, number>;
  below_cost_open: number;
  renewals_at_loss_open: number;
  products_flagged: number;
  products_held: number;
  margin_floor_percent: number;
  hold_below_cost: boolean;
};

/** Counts beside the list (same filters, no paging): per state, unresolved below-cost and renewal findings, products flagged and held. */
export async function summarisePriceFindings(deps: DomainDeps, filters: FindingFilters): Promise<FindingSummary> {
  const settings = await readSettings(deps, economicsSettings);
  const { values, param } = sqlParams();
  const row = await sqlOne<Record<string, number>>(
    deps,
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE f.state = 'open')::int AS open,
            count(*) FILTER (WHERE f.state = 'acknowledged')::int AS acknowledged,
            count(*) FILTER (WHERE f.state = 'resolved')::int AS resolved,
            count(*) FILTER (WHERE f.state <> 'resolved' AND f.kind = 'price' AND f.below_cost)::int AS below_cost_open,
            count(*) FILTER (WHERE f.state <> 'resolved' AND f.kind = 'renewal')::int AS renewals_at_loss_open,
            count(DISTINCT f.product_id) FILTER (WHERE f.state <> 'resolved')::int AS products_flagged,
            count(DISTINCT f.product_id) FILTER (WHERE ${FINDING_HOLDS_SQL})::int AS products_below_cost
       FROM upstream_price_findings f WHERE ${where(filters, param)}`,
    values,
  );
  const r = row ?? {};
  return {
    total: r['total'] ?? 0,
    by_state: { open: r['open'] ?? 0, acknowledged: r['acknowledged'] ?? 0, resolved: r['resolved'] ?? 0 },
    below_cost_open: r['below_cost_open'] ?? 0,
    renewals_at_loss_open: r['renewals_at_loss_open'] ?? 0,
    products_flagged: r['products_flagged'] ?? 0,
    products_held: settings.hold_below_cost ? (r['products_below_cost'] ?? 0) : 0,
    margin_floor_percent: settings.margin_floor_percent,
    hold_below_cost: settings.hold_below_cost,
  };
}

async function findFinding(deps: DomainDeps, id: number): Promise<PriceFinding> {
  const row = await sqlOne<PriceFinding>(deps, `SELECT ${COLUMNS} FROM upstream_price_findings f JOIN products p ON p.id = f.product_id WHERE f.id = $2`, [
    await holdOn(deps),
    id,
  ]);
  if (!row) throw notFound('价格漂移记录不存在');
  return row;
}

/**
 * An admin has seen the finding: `open` → `acknowledged` by a guarded update. Acknowledging
 * again answers the row as it is; a resolved finding is a conflict (40900). Acknowledging does
 * not lift a hold: only new prices (a re-price, or the upstream's price falling back) do.
 */
export async function acknowledgePriceFinding(deps: DomainDeps, id: number, operator: Actor): Promise<PriceFinding> {
  const updated = await sqlOne<{ id: string }>(
    deps,
    `UPDATE upstream_price_findings SET state = 'acknowledged', acknowledged_by = $2, acknowledged_at = now(), updated_at = now()
      WHERE id = $1 AND state = 'open' RETURNING id::text AS id`,
    [id, operator.id],
  );
  const row = await findFinding(deps, id);
  if (!updated && row.state === 'resolved') throw conflict('该价格漂移已解决，无需确认');
  return row;
}
