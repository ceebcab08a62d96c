import type { Transaction } from 'sequelize';
import { sqlOne } from '../../db/sql.js';
import type { ServiceRow } from '../../db/models/service.js';
import { readPluginSchemas } from '../catalogue/plugin-schemas.js';
import { resolveTemplates } from '../catalogue/product-types.js';
import type { DomainDeps } from '../deps.js';
import { type DownstreamReference, newDownstreamToken, newServicePassword } from './downstream.js';
import type { Actor } from '../../lib/actor.js';
import { provisioningWork } from '../upstream-work/kinds.js';
import { recordAdminRetry } from '../upstream-work/record.js';
import { recordServiceEvent } from '../services/service-events.js';

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

type ServiceContext = {
  invoice_no: string;
  product_name: string | null;
  product_config_options: Array<{ field: string; parameter: string }> | null;
  purchase_template: string | null;
  console_template_explicit: string | null;
  binding_plugin_id: number | null;
  binding_supplier_id: number | null;
  binding_provider_key: string | null;
  upstream_product_id: string | null;
  supplier_code: string | null;
  supplier_status: string | null;
  plugin_key: string | null;
  plugin_extra: unknown;
};

async function loadContext(deps: DomainDeps, service: ServiceRow, transaction: Transaction): Promise<ServiceContext> {
  const row = await sqlOne<ServiceContext>(
    deps,
    `SELECT i.invoice_no, COALESCE(NULLIF(p.display_name, ''), p.name) AS product_name, p.config_options AS product_config_options, p.purchase_template, p.console_template AS console_template_explicit,
            b.plugin_id AS binding_plugin_id, b.supplier_id AS binding_supplier_id, b.provider_key AS binding_provider_key,
            b.upstream_product_id, s.code AS supplier_code, s.status AS supplier_status,
            pl.key AS plugin_key, pl.manifest->'info'->'extra' AS plugin_extra
       FROM invoices i
       LEFT JOIN products p ON p.id = $1
       LEFT JOIN product_upstream_bindings b ON b.product_id = p.id
       LEFT JOIN suppliers s ON s.id = b.supplier_id
       LEFT JOIN plugins pl ON pl.id = COALESCE(s.plugin_id, b.plugin_id)
      WHERE i.id = $2`,
    [service.product_id, service.invoice_id],
    transaction,
  );
  return row as ServiceContext;
}

/** The service's chosen options as the upstream's `configoption` values, by option `parameter`. */
function upstreamConfig(service: ServiceRow, options: Array<{ field: string; parameter: string }>): Record<string, number> {
  const chosen = service.config as Record<string, { value?: unknown } | undefined>;
  const out: Record<string, number> = {};
  for (const option of options) {
    const value = chosen[option.field]?.value;
    if (option.parameter && typeof value === 'number') out[option.parameter] = value;
  }
  return out;
}

/**
 * The first step of `provision:<id>`, idempotent: takes the service row lock, stops if the
 * service is already finished, and otherwise snapshots what the service keeps of its purchase
 * (console template, real provider and plugin keys, supplier), creates once the hostname, the
 * sealed root password and the 32-character downstream reference (stored before the first
 * upstream call and reused by every retry), creates the upstream binding row, and moves the
 * service to `provisioning`. A product without a supplier binding cannot be bought upstream.
 */
export async function prepareProvisioning(deps: DomainDeps, serviceId: number, workflowId: string, retriedBy: Actor | null = null): Promise<PreparedProvisioning> {
  return deps.db.sequelize.transaction(async (transaction) => {
    const { Service, ServiceUpstreamBinding } = deps.db.models;
    const service = await Service.findByPk(serviceId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!service) throw new Error(`service ${serviceId} not found`);
    if (['active', 'cancelled', 'terminated', 'suspended'].includes(service.status)) {
      return { kind: 'finished', serviceId, status: service.status };
    }
    if (retriedBy) await recordAdminRetry(deps, provisioningWork(serviceId), { retriedBy, workflowId }, transaction);
    const ctx = await loadContext(deps, service, transaction);
    const schemas = readPluginSchemas(ctx.plugin_extra);
    const templates = resolveTemplates(
      service.product_type,
      { purchase: ctx.purchase_template, console: ctx.console_template_explicit },
      { purchaseSchema: schemas.purchase, consoleSchema: schemas.console },
    );
    const patch: Partial<ServiceRow> = {
      console_template: service.console_template ?? templates.console_template,
      // Services sold before the name was snapshotted at payment get the product's current one.
      product_name: service.product_name || (ctx.product_name ?? '').slice(0, 128),
      provider_key: service.provider_key || ctx.binding_provider_key || '',
      plugin_key: service.plugin_key || ctx.plugin_key || '',
      supplier_id: service.supplier_id ?? ctx.binding_supplier_id,
      hostname: service.hostname || `srv${serviceId}`,
      password_sealed: service.password_sealed || deps.secretBox.seal(newServicePassword()),
      downstream_token: service.downstream_token ?? newDownstreamToken(),
    };
    const canBuy = ctx.binding_supplier_id !== null && ctx.upstream_product_id && Number(ctx.upstream_product_id) > 0;
    if (!canBuy || ctx.supplier_status !== 'active') {
      await service.update(patch, { transaction });
      const reason = canBuy ? '上游供应商已停用，无法自动开通' : '商品未绑定上游供应商，无法自动开通';
      return { kind: 'no_upstream', serviceId, userId: service.user_id, invoiceNo: ctx.invoice_no, reason };
    }
    if (service.status !== 'provisioning') {
      patch.status = 'provisioning';
      patch.failure_code = null;
      patch.failure_reason = null;
    }
    await service.update(patch, { transaction });
    await ServiceUpstreamBinding.findOrCreate({
      where: { service_id: serviceId },
      defaults: {
        service_id: serviceId,
        product_id: service.product_id,
        supplier_id: ctx.binding_supplier_id as number,
        plugin_id: ctx.binding_plugin_id,
        provider_key: ctx.binding_provider_key ?? '',
        upstream_product_id: ctx.upstream_product_id as string,
      },
      transaction,
    });
    await recordServiceEvent(deps, { serviceId, kind: 'provision', stage: 'prepare', status: 'succeeded', message: '已准备开通信息', workflowId }, transaction);
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
      config: upstreamConfig(service, ctx.product_config_options ?? []),
      hostname: patch.hostname as string,
      downstream: { token: patch.downstream_token as string, url: deps.config.publicBaseUrl, service_id: serviceId },
      traceId: workflowId,
    };
  });
}
