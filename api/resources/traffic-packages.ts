import { z } from '@hono/zod-openapi';
import type { TrafficPackageOffer } from '../../domain/services/traffic/traffic-packages.js';
import { moneyString } from '../schemas.js';

export const trafficPackageSchema = z
  .object({
    package_id: z.number().int(),
    name: z.string(),
    size_gb: z.number().int(),
    price: moneyString.openapi({ description: '本平台价格（上游价格按商品绑定的加价规则计算）' }),
    currency: z.literal('CNY'),
  })
  .openapi('TrafficPackage');

/** Our price only: the upstream's price stays internal. */
export function trafficPackageResource(p: TrafficPackageOffer) {
  return { package_id: p.package_id, name: p.name, size_gb: p.size_gb, price: p.price, currency: 'CNY' as const };
}

export const trafficQuoteSchema = z
  .object({
    service_id: z.number().int(),
    package_id: z.number().int(),
    name: z.string(),
    size_gb: z.number().int(),
    amount: moneyString,
    currency: z.literal('CNY'),
  })
  .openapi('TrafficPackageQuote');

export function trafficQuoteResource(serviceId: number, p: TrafficPackageOffer) {
  return { service_id: serviceId, package_id: p.package_id, name: p.name, size_gb: p.size_gb, amount: p.price, currency: 'CNY' as const };
}
