import { asArray, asInt, asRecord, asString } from '../read.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';

/** A traffic package ("flow packet") on sale for a host. */
export type TrafficPackage = { package_id: number; name: string; size_gb: number; price: string };

/** `data.flow_packet` of the host detail → packages on sale (ones without id, size or price dropped). */
export function normaliseTrafficPackages(value: unknown): TrafficPackage[] {
  return asArray(value).flatMap((item) => {
    const raw = asRecord(item);
    if (!raw) return [];
    const id = asInt(raw['id']);
    const size = asInt(raw['capacity']);
    const price = parseUpstreamAmount(raw['price']);
    const onSale = raw['status'] === undefined || asInt(raw['status']) === 1;
    if (id === null || size === null || size <= 0 || price === null || !onSale) return [];
    return [{ package_id: id, name: asString(raw['name']) ?? `流量包 ${size}GB`, size_gb: size, price }];
  });
}
