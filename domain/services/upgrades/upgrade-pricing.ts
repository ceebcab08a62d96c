import { AppError, ErrorCode, notFound, validationError } from '../../../lib/errors.js';
import { sqlOne, type Tx } from '../../../db/sql.js';
import type { ServiceStatus } from '../../../db/models/service.js';
import { type BillingPeriod, billingPeriodMonths, isBillingPeriod } from '../../catalogue/billing-periods.js';
import { type ConfigOptionItem, isQuantityOptionType, parseConfigOptions } from '../../catalogue/config-options.js';
import type { PricingMap } from '../../catalogue/pricing-map.js';
import { priceSelection, type SelectedConfig } from '../../catalogue/pricing.js';
import type { DomainDeps } from '../../deps.js';
import { SERVICE_STATUS_LABELS } from '../service-labels.js';
import { type Proration, prorate } from './proration.js';

/** Fields a running service may change: not the location (a migration) nor the system (a reinstall). */
const FIXED_FIELDS: readonly string[] = ['area', 'os'];

/** The service as an upgrade reads it (under its row lock when a transaction is given). */
export type UpgradableService = {
  id: number;
  user_id: number;
  product_id: number;
  status: ServiceStatus;
  billing_period: string;
  price: string;
  config: Record<string, { value?: unknown; label?: unknown }>;
  next_due_at: Date | null;
  product_name: string;
};

export type UpgradeProduct = { id: number; name: string; pricing: PricingMap; config_options: ConfigOptionItem[] };

export type UpgradeContext = { service: UpgradableService; product: UpgradeProduct; period: BillingPeriod; months: number; dueAt: Date };

/** One priced change: the target configuration, its price (the next locked price) and the proration. */
export type PricedChange = {
  config: SelectedConfig;
  /** Only the fields that change: field → { from, to }. */
  changes: Array<{ field: string; name: string; from: string; to: string }>;
  proration: Proration;
};

/**
 * The service (and its product) an upgrade works on; refuses what cannot change (40961): not
 * active, one-time, no due date, or nothing left of the period. Another user's service is 40400.
 */
export async function loadUpgradeContext(deps: DomainDeps, serviceId: number, userId: number, tx?: Tx): Promise<UpgradeContext> {
  const service = await sqlOne<UpgradableService>(
    deps,
    `SELECT id, user_id, product_id, status, billing_period, price, config, next_due_at, product_name
       FROM services WHERE id = $1 AND user_id = $2${tx ? ' FOR UPDATE' : ''}`,
    [serviceId, userId],
    tx,
  );
  if (!service) throw notFound('服务不存在');
  if (service.status !== 'active') {
    throw new AppError(ErrorCode.SERVICE_NOT_UPGRADABLE, `服务${SERVICE_STATUS_LABELS[service.status] ?? '当前状态'}，不能升降级配置`, { status: service.status });
  }
  const period = service.billing_period;
  const months = isBillingPeriod(period) ? billingPeriodMonths(period) : null;
  if (!isBillingPeriod(period) || period === 'onetime' || !months || !service.next_due_at) {
    throw new AppError(ErrorCode.SERVICE_NOT_UPGRADABLE, '一次性付费或没有到期时间的服务不能升降级配置');
  }
  const product = await sqlOne<{ id: number; name: string; display_name: string; pricing: PricingMap; config_options: unknown }>(
    deps,
    `SELECT id, name, display_name, pricing, config_options FROM products WHERE id = $1 AND deleted_at IS NULL AND status = 'active'`,
    [service.product_id],
    tx,
  );
  if (!product) throw new AppError(ErrorCode.SERVICE_NOT_UPGRADABLE, '该服务的商品已下架，不能升降级配置');
  let options: ConfigOptionItem[];
  try {
    options = parseConfigOptions(product.config_options);
  } catch {
    throw new AppError(ErrorCode.SERVICE_NOT_UPGRADABLE, '该商品的配置项有误，暂不能升降级配置');
  }
  if (product.pricing[period] === undefined) throw new AppError(ErrorCode.SERVICE_NOT_UPGRADABLE, '该商品已不再按此周期销售，不能升降级配置');
  return { service, product: { id: product.id, name: product.display_name || product.name, pricing: product.pricing, config_options: options }, period, months, dueAt: service.next_due_at };
}

/** The options a customer may change (visible, not location or system), in the product's order. */
export function changeableOptions(product: UpgradeProduct): ConfigOptionItem[] {
  return product.config_options.filter((o) => !o.hidden && !FIXED_FIELDS.includes(o.field));
}

/** The service's current choice of each option, as a `priceSelection` config (a missing one takes the product's default). */
export function currentSelection(ctx: UpgradeContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const option of ctx.product.config_options) {
    if (option.hidden) continue;
    const value = ctx.service.config[option.field]?.value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) out[option.field] = value;
  }
  return out;
}

/**
 * THE pricing function of a configuration change (quotes, the option list and the invoice all go
 * through it, so they cannot disagree; a coupon, when it applies to upgrades, is applied to its
 * result here): the target is the current configuration with `changes` applied; its price is the
 * catalogue's for the service's period (`priceSelection`), which becomes the service's locked
 * price; the old price is the service's locked price. Bad changes → 42200 naming the field
 * (`config.<field>`); no change at all → 42200.
 */
export function priceChange(ctx: UpgradeContext, changes: Record<string, unknown>, now: Date): PricedChange {
  const allowed = changeableOptions(ctx.product);
  const errors: Record<string, string[]> = {};
  for (const field of Object.keys(changes)) {
    const option = ctx.product.config_options.find((o) => o.field === field);
    if (!option) errors[`config.${field}`] = [`商品没有配置项 ${field}`];
    else if (!allowed.includes(option)) errors[`config.${field}`] = [`配置项 ${option.name} 不能在升降级中修改`];
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const current = currentSelection(ctx);
  const target = { ...current, ...changes };
  const priced = priceSelection(ctx.product, { billingPeriod: ctx.period, config: target, quantity: 1 });
  const before = priceSelection(ctx.product, { billingPeriod: ctx.period, config: current, quantity: 1 }).config;
  const changed = allowed
    .filter((o) => priced.config[o.field] && before[o.field] && priced.config[o.field]?.value !== before[o.field]?.value)
    .map((o) => ({ field: o.field, name: o.name, from: valueLabel(o, before[o.field]?.value ?? 0), to: valueLabel(o, priced.config[o.field]?.value ?? 0) }));
  if (changed.length === 0) throw validationError({ config: ['所选配置与当前配置相同'] }, '所选配置与当前配置相同');
  const proration = prorate({ oldPrice: ctx.service.price, newPrice: priced.total_amount, dueAt: ctx.dueAt, months: ctx.months, now });
  if (proration.days_left === 0) throw new AppError(ErrorCode.SERVICE_NOT_UPGRADABLE, '服务本周期已到期，请先续费后再升降级配置');
  return { config: priced.config, changes: changed, proration };
}

/** How a value of an option reads on its own: the sub-option's label, or the quantity with its unit. */
export function valueLabel(option: ConfigOptionItem, value: number): string {
  if (isQuantityOptionType(option.option_type)) return `${value}${option.unit ? ` ${option.unit}` : ''}`;
  return option.sub.find((s) => s.id === value)?.label ?? String(value);
}

/** The values a listed option offers: its sub-options, or the quantities of a small range. */
export function optionValues(option: ConfigOptionItem): number[] {
  if (!isQuantityOptionType(option.option_type)) return option.sub.map((s) => s.id);
  const count = option.qty_maximum - option.qty_minimum + 1;
  if (count > 64 || count < 1) return [];
  return Array.from({ length: count }, (_, i) => option.qty_minimum + i);
}
