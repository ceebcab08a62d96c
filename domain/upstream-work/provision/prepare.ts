import type { InferAttributes } from 'sequelize';
import { inTransaction, sqlOne, sqlRows, statement } from '../../../db/sql.js';
import type { ServiceRow } from '../../../db/models/service.js';
import { readPluginSchemas } from '../../catalogue/plugin-schemas.js';
import { resolveTemplates } from '../../catalogue/product-types.js';
import type { DomainDeps } from '../../deps.js';
import { type DownstreamReference, downstreamTokenFor, newServicePassword } from './downstream.js';
import type { Actor } from '../../../lib/actor.js';
import { provisioningWork } from '../kinds.js';
import { recordAdminRetry } from '../record.js';
import { countServiceEvent } from '../../services/service-events.js';
import type { BillingPeriod } from '../../catalogue/billing-periods.js';
import { type RoutingDecision, routeProvisioning } from '../routing.js';

/** What the workflow needs to buy upstream; never a secret (it ends up in the workflow history). */
export type PreparedProvisioning =
  | {
      kind: 'upstream';
      serviceId: number;
      userId: number;
      invoiceNo: string;
      supplierId: number;
      supplierCode: string;
      providerKey: string;
      upstreamProductId: number;
      billingPeriod: string;
      /** `configoption[<parameter>]` values: sub-option ids, or numbers for quantity options. */
      config: Record<string, number>;
      hostname: string;
      downstream: DownstreamReference;
      /** The workflow id: every supplier call of this provisioning carries it as its trace id. */
      traceId: string;
    }
  | { kind: 'finished'; serviceId: number; status: string }
  | { kind: 'no_upstream'; serviceId: number; userId: number; invoiceNo: string; reason: string };

/** The locked service row with what its purchase's context says (invoice, product, binding, supplier, plugin). */
type LockedService = Pick<
  InferAttributes<ServiceRow>,
  | 'status'
  | 'user_id'
  | 'product_id'
  | 'product_type'
  | 'billing_period'
  | 'config'
  | 'console_template'
  | 'product_name'
  | 'provider_key'
  | 'plugin_key'
  | 'supplier_id'
  | 'hostname'
  | 'password_sealed'
  | 'downstream_token'
  | 'failure_code'
  | 'failure_reason'
> & {
  invoice_no: string;
  created_micros: string;
  ctx_product_name: string | null;
  product_config_options: Array<{ field: string; parameter: string }> | null;
  purchase_template: string | null;
  console_template_explicit: string | null;
  binding_plugin_id: number | null;
  binding_supplier_id: number | null;
  binding_provider_key: string | null;
  upstream_product_id: string | null;
  binding_held: boolean;
  supplier_code: string | null;
  supplier_status: string | null;
  plugin_key_of_plugin: string | null;
  plugin_extra: unknown;
};

/**
 * The service row lock and its purchase's context, in one statement. The binding bought from is
 * the service's own once it has one (`service_upstream_bindings`: a purchase started at a
 * supplier is settled there, also after an admin's retry); before that, the further binding
 * routing chose (`$2`), or the product's first binding (`$2` null).
 */
const LOCK_SERVICE = statement(
  `SELECT w.status, w.user_id, w.product_id, w.product_type, w.billing_period, w.config, w.console_template, w.product_name,
          w.provider_key, w.plugin_key, w.supplier_id, w.hostname, w.password_sealed, w.downstream_token, w.failure_code, w.failure_reason,
          i.invoice_no, (extract(epoch FROM w.created_at) * 1000000)::bigint::text AS created_micros, COALESCE(NULLIF(p.display_name, ''), p.name) AS ctx_product_name, p.config_options AS product_config_options,
          p.purchase_template, p.console_template AS console_template_explicit,
          b.plugin_id AS binding_plugin_id, b.supplier_id AS binding_supplier_id, b.provider_key AS binding_provider_key,
          b.upstream_product_id, COALESCE(b.held, false) AS binding_held, s.code AS supplier_code, s.status AS supplier_status,
          pl.key AS plugin_key_of_plugin, pl.manifest->'info'->'extra' AS plugin_extra
     FROM services w
     LEFT JOIN invoices i ON i.id = w.invoice_id
     LEFT JOIN products p ON p.id = w.product_id
     LEFT JOIN LATERAL (
       SELECT x.plugin_id, x.supplier_id, x.provider_key, x.upstream_product_id, x.held FROM (
         SELECT sb.plugin_id, sb.supplier_id, sb.provider_key, sb.upstream_product_id, true AS held, 1 AS rank
           FROM service_upstream_bindings sb WHERE sb.service_id = w.id
         UNION ALL
         SELECT a.plugin_id, a.supplier_id, a.provider_key, a.upstream_product_id, false, 2
           FROM product_upstream_alternates a WHERE a.product_id = p.id AND a.id = $2::int
         UNION ALL
         SELECT pb.plugin_id, pb.supplier_id, pb.provider_key, pb.upstream_product_id, false, 3
           FROM product_upstream_bindings pb WHERE pb.product_id = p.id AND $2::int IS NULL) x
        ORDER BY x.rank LIMIT 1) b ON true
     LEFT JOIN suppliers s ON s.id = b.supplier_id
     LEFT JOIN plugins pl ON pl.id = COALESCE(s.plugin_id, b.plugin_id)
    WHERE w.id = $1
    FOR UPDATE OF w`,
);

/** What prepare writes on the service; `$13`: whether any of it changes (nothing is written otherwise). */
const PATCH_SERVICE = `UPDATE services SET console_template = $2, product_name = $3, provider_key = $4, plugin_key = $5, supplier_id = $6,
         hostname = $7, password_sealed = $8, downstream_token = $9, status = $10, failure_code = $11, failure_reason = $12, updated_at = now()
   WHERE id = $1 AND $13::boolean`;

/** A service that cannot be bought upstream: its snapshot only. */
const PATCH_ONLY = statement(`${PATCH_SERVICE} RETURNING id`);

/**
 * A service bought upstream, in one statement: its snapshot and status, its upstream binding
 * (created once: the service id is its key) and the step's `succeeded` history row.
 */
const PATCH_AND_BIND = statement(
  `WITH patched AS (${PATCH_SERVICE} RETURNING id),
   bound AS (
     INSERT INTO service_upstream_bindings (service_id, product_id, supplier_id, plugin_id, provider_key, upstream_product_id)
     VALUES ($1, $14, $15, $16, $17, $18) ON CONFLICT (service_id) DO NOTHING RETURNING service_id)
   INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id)
   VALUES ($1, 'provision', 'prepare', 'succeeded', $19, $21::jsonb, $20) RETURNING id`,
);

/** The service's chosen options as the upstream's `configoption` values, by option `parameter`. */
function upstreamConfig(config: Record<string, unknown>, options: Array<{ field: string; parameter: string }>): Record<string, number> {
  const chosen = config as Record<string, { value?: unknown } | undefined>;
  const out: Record<string, number> = {};
  for (const option of options) {
    const value = chosen[option.field]?.value;
    if (option.parameter && typeof value === 'number') out[option.parameter] = value;
  }
  return out;
}

/** What routing needs of a service not yet bound upstream; no row: bound already, or nothing to route among. */
const ROUTABLE = statement(
  `SELECT w.product_id, w.billing_period, w.price::text AS price, w.config,
          COALESCE((SELECT json_agg(json_build_object('supplierId', t.supplier_id, 'reason', t.reason) ORDER BY t.id)
                      FROM service_upstream_attempts t WHERE t.service_id = w.id), '[]'::json) AS tried
     FROM services w
    WHERE w.id = $1 AND w.status IN ('pending', 'provisioning', 'failed')
      AND NOT EXISTS (SELECT 1 FROM service_upstream_bindings sb WHERE sb.service_id = w.id)
      AND EXISTS (SELECT 1 FROM product_upstream_alternates a WHERE a.product_id = w.product_id)`,
);

/**
 * The routing of a service about to be bought: only a service without an upstream binding of its
 * own whose product has further bindings is routed (`routeProvisioning`, before the transaction:
 * it reads the suppliers); the suppliers it already failed at are left out. Null: nothing to
 * route (one binding, or the service is bound and settles where it is).
 */
export async function routeUnboundService(deps: DomainDeps, serviceId: number, traceId: string): Promise<RoutingDecision | null> {
  const row = await sqlOne<{ product_id: number; billing_period: BillingPeriod; price: string; config: Record<string, unknown> | null; tried: Array<{ supplierId: number; reason: string }> }>(
    deps,
    ROUTABLE,
    [serviceId],
  );
  if (!row) return null;
  return routeProvisioning(deps, {
    productId: row.product_id,
    billingPeriod: row.billing_period,
    price: row.price,
    config: row.config,
    traceId,
    exclude: row.tried.map((t) => ({ supplierId: t.supplierId, reason: `本次开通已放弃：${t.reason}` })),
  });
}

/** What the history keeps of a routing decision: every binding with its verdict, never a secret. */
export function routingDetail(decision: RoutingDecision): Record<string, unknown> {
  return {
    routing: {
      policy: decision.policy,
      chosen_supplier_id: decision.chosen?.supplierId ?? null,
      candidates: decision.candidates.map((c) => ({
        binding_id: c.bindingId,
        priority: c.priority,
        supplier_id: c.supplierId,
        upstream_product_id: c.upstreamProductId,
        cost: c.cost,
        balance: c.balance,
        eligible: c.eligible,
        reason: c.reason,
      })),
    },
  };
}

/**
 * The first step of `provision:<id>`, idempotent: takes the service row lock, stops if the
 * service is already finished, and otherwise snapshots what the service keeps of its purchase
 * (console template, real provider and plugin keys, supplier), creates once the hostname, the
 * sealed root password and the 32-character downstream reference (stored before the first
 * upstream call and reused by every retry), creates the upstream binding row, and moves the
 * service to `provisioning`. A product without a supplier binding cannot be bought upstream.
 * One transaction of prepared statements: the lock with the purchase's context, the admin's
 * retry row (after a retry), then the service, its binding and the history row together.
 */
export async function prepareProvisioning(deps: DomainDeps, serviceId: number, workflowId: string, retriedBy: Actor | null = null): Promise<PreparedProvisioning> {
  const routed = await routeUnboundService(deps, serviceId, workflowId);
  return inTransaction(deps, async (tx) => {
    const service = await sqlOne<LockedService>(deps, LOCK_SERVICE, [serviceId, routed?.chosen?.bindingId ?? null], tx);
    if (!service) throw new Error(`service ${serviceId} not found`);
    if (['active', 'cancelled', 'terminated', 'suspended'].includes(service.status)) {
      return { kind: 'finished', serviceId, status: service.status };
    }
    if (retriedBy) await recordAdminRetry(deps, provisioningWork(serviceId), { retriedBy, workflowId }, tx);
    const ctx = service; // the purchase's context came with the lock
    const schemas = readPluginSchemas(ctx.plugin_extra);
    const templates = resolveTemplates(
      service.product_type,
      { purchase: ctx.purchase_template, console: ctx.console_template_explicit },
      { purchaseSchema: schemas.purchase, consoleSchema: schemas.console },
    );
    const patch = {
      console_template: service.console_template ?? templates.console_template,
      // Services sold before the name was snapshotted at payment get the product's current one.
      product_name: service.product_name || (ctx.ctx_product_name ?? '').slice(0, 128),
      provider_key: service.provider_key || ctx.binding_provider_key || '',
      plugin_key: service.plugin_key || ctx.plugin_key_of_plugin || '',
      supplier_id: service.supplier_id ?? ctx.binding_supplier_id,
      hostname: service.hostname || `srv${serviceId}`,
      password_sealed: service.password_sealed || deps.secretBox.seal(newServicePassword()),
      downstream_token: service.downstream_token ?? downstreamTokenFor(deps.config.secretKey, { id: serviceId, invoiceNo: ctx.invoice_no, createdMicros: ctx.created_micros }),
      status: service.status,
      failure_code: service.failure_code,
      failure_reason: service.failure_reason,
    };
    // Routed and none can sell: the decision's sentence names every binding and why.
    const noneRouted = routed !== null && routed.chosen === null && !ctx.binding_held;
    const canBuy = !noneRouted && ctx.binding_supplier_id !== null && ctx.upstream_product_id && Number(ctx.upstream_product_id) > 0;
    const buying = canBuy && ctx.supplier_status === 'active';
    if (buying && service.status !== 'provisioning') {
      patch.status = 'provisioning';
      patch.failure_code = null;
      patch.failure_reason = null;
    }
    // As a model's update: only a change is written (and then `updated_at` moves).
    const changed = (Object.keys(patch) as Array<keyof typeof patch>).some((column) => patch[column] !== service[column]);
    const values = [
      serviceId,
      patch.console_template,
      patch.product_name,
      patch.provider_key,
      patch.plugin_key,
      patch.supplier_id,
      patch.hostname,
      patch.password_sealed,
      patch.downstream_token,
      patch.status,
      patch.failure_code,
      patch.failure_reason,
      changed,
    ];
    if (!buying) {
      await sqlRows(deps, PATCH_ONLY, values, tx);
      const reason = noneRouted ? routed.summary : canBuy ? '上游供应商已停用，无法自动开通' : '商品未绑定上游供应商，无法自动开通';
      return { kind: 'no_upstream', serviceId, userId: service.user_id, invoiceNo: ctx.invoice_no, reason };
    }
    const chosenHere = routed?.chosen && !ctx.binding_held ? routed : null;
    const message = chosenHere ? `已准备开通信息：${chosenHere.summary}`.slice(0, 255) : '已准备开通信息';
    await sqlRows(
      deps,
      PATCH_AND_BIND,
      [
        ...values,
        service.product_id,
        ctx.binding_supplier_id,
        ctx.binding_plugin_id,
        ctx.binding_provider_key ?? '',
        ctx.upstream_product_id,
        message,
        workflowId,
        JSON.stringify(chosenHere ? routingDetail(chosenHere) : {}),
      ],
      tx,
    );
    countServiceEvent({ kind: 'provision', stage: 'prepare', status: 'succeeded' }, tx);
    return {
      kind: 'upstream',
      serviceId,
      userId: service.user_id,
      invoiceNo: ctx.invoice_no,
      supplierId: ctx.binding_supplier_id as number,
      supplierCode: ctx.supplier_code ?? '',
      providerKey: ctx.binding_provider_key ?? '',
      upstreamProductId: Number(ctx.upstream_product_id),
      billingPeriod: service.billing_period,
      config: upstreamConfig(service.config, ctx.product_config_options ?? []),
      hostname: patch.hostname,
      downstream: { token: patch.downstream_token, url: deps.config.publicBaseUrl, service_id: serviceId },
      traceId: workflowId,
    };
  });
}
