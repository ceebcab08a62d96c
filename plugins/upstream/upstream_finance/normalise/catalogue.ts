import { asArray, asInt, asRecord, asString } from '../read.js';
import { toBillingPeriod } from './billing-period.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { toProductType } from './product-type.js';

export type CatalogueProduct = {
  id: number;
  name: string;
  description: string;
  upstream_type: string;
  product_type: string;
  starting_price: { billing_period: string; amount: string } | null;
  stock: { controlled: boolean; qty: number };
};

export type CatalogueGroup = { id: number; name: string; products: CatalogueProduct[] };

function normaliseProduct(raw: unknown): CatalogueProduct | null {
  const product = asRecord(raw);
  const id = product ? asInt(product['id']) : null;
  if (!product || id === null) return null;
  const upstreamType = asString(product['type']) ?? '';
  const period = toBillingPeriod(asString(product['billingcycle']) ?? '');
  const amount = parseUpstreamAmount(product['sale_price']);
  return {
    id,
    name: asString(product['name']) ?? `商品 ${id}`,
    description: asString(product['description']) ?? '',
    upstream_type: upstreamType,
    product_type: toProductType(upstreamType),
    starting_price: period && amount !== null ? { billing_period: period, amount } : null,
    stock: { controlled: asInt(product['stock_control']) === 1, qty: Math.max(0, asInt(product['qty']) ?? 0) },
  };
}

/** `data.groups` of `/cart/all` → our groups with their products. */
export function normaliseCatalogue(data: unknown): CatalogueGroup[] {
  const groups: CatalogueGroup[] = [];
  for (const raw of asArray(asRecord(data)?.['groups'])) {
    const group = asRecord(raw);
    const id = group ? asInt(group['id']) : null;
    if (!group || id === null) continue;
    const products = asArray(group['products'])
      .map(normaliseProduct)
      .filter((p): p is CatalogueProduct => p !== null);
    groups.push({ id, name: asString(group['name']) ?? `分组 ${id}`, products });
  }
  return groups;
}
