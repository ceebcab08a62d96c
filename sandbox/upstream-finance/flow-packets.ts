import type { SandboxHost } from './hosts-data.js';
import { findSandboxProduct } from './catalogue-data.js';

/** A traffic package ("flow packet") the upstream sells for a host; capacity in GB. */
export type FlowPacket = { id: number; name: string; capacity: number; price: string };

const SERVER_PACKETS: FlowPacket[] = [
  { id: 11, name: '流量包 100GB', capacity: 100, price: '10.00' },
  { id: 12, name: '流量包 500GB', capacity: 500, price: '45.00' },
  { id: 13, name: '流量包 1TB', capacity: 1024, price: '80.00' },
];

/** Packages on sale for a host: cloud and bare-metal hosts have them, hosting and CDN do not. */
export function flowPacketsFor(host: SandboxHost): FlowPacket[] {
  const type = findSandboxProduct(host.productId)?.type ?? 'cloud';
  return type === 'cloud' || type === 'dcim' ? SERVER_PACKETS : [];
}

export function findFlowPacket(host: SandboxHost, id: number): FlowPacket | undefined {
  return flowPacketsFor(host).find((p) => p.id === id);
}
