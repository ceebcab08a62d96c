import { unexpectedResponse } from '../client/upstream-error.js';
import { asArray, asInt, asRecord, asString } from '../read.js';
import { normaliseConfigOption, type ConfigOptionItem, type SkippedOption } from './config-option.js';
import { normalisePricing, type PricingMap } from './pricing.js';
import { toProductType } from './product-type.js';

export type ProductConfig = {
  id: number;
  group_id: number | null;
  name: string;
  description: string;
  upstream_type: string;
  product_type: string;
  /** Flat map billing period → two-digit decimal string (spec "Product": pricing). */
  pricing: PricingMap;
  setup_fees: PricingMap;
  stock: { controlled: boolean; qty: number };
  config_options: ConfigOptionItem[];
  /** Upstream options that map to none of our fields (left out of config_options). */
  skipped_options: SkippedOption[];
};

function cycleEntries(cycles: unknown[], amountKey: string): [string, unknown][] {
  return cycles.flatMap((raw): [string, unknown][] => {
    const cycle = asRecord(raw);
    const name = cycle ? asString(cycle['billingcycle']) : null;
    return cycle && name ? [[name, cycle[amountKey]]] : [];
  });
}

/** `data` of `/cart/get_product_config` → our product with config options as an array of items. */
export function normaliseProductConfig(data: unknown): ProductConfig {
  const root = asRecord(data);
  const product = asRecord(root?.['products']);
  const id = product ? asInt(product['id']) : null;
  if (!root || !product || id === null) {
    throw unexpectedResponse('上游商品配置缺少商品信息');
  }
  const configOptions: ConfigOptionItem[] = [];
  const skipped: SkippedOption[] = [];
  for (const group of asArray(root['config_groups'])) {
    for (const option of asArray(asRecord(group)?.['options'])) {
      const outcome = normaliseConfigOption(option);
      if ('item' in outcome) configOptions.push(outcome.item);
      else skipped.push(outcome.skipped);
    }
  }
  const cycles = asArray(product['cycle']);
  const upstreamType = asString(product['type']) ?? '';
  return {
    id,
    group_id: asInt(product['gid']),
    name: asString(product['name']) ?? `商品 ${id}`,
    description: asString(product['description']) ?? '',
    upstream_type: upstreamType,
    product_type: toProductType(upstreamType),
    pricing: normalisePricing(cycleEntries(cycles, 'product_price')),
    setup_fees: normalisePricing(cycleEntries(cycles, 'setup_fee')),
    stock: { controlled: asInt(product['stock_control']) === 1, qty: Math.max(0, asInt(product['qty']) ?? 0) },
    config_options: configOptions,
    skipped_options: skipped,
  };
}
