import { findSandboxProduct, type SandboxProduct } from './catalogue-data.js';
import { generateHostPassword } from './cart-item.js';
import type { SandboxHost } from './hosts-data.js';
import type { CartItem, SandboxState } from './state.js';

/** `"<id>|<family>^<version>"` → `"<family> <version>"`. */
export function osLabel(subName: string): string {
  const text = subName.includes('|') ? subName.slice(subName.indexOf('|') + 1) : subName;
  return text.replace('^', ' ').trim();
}

function optionValue(product: SandboxProduct, config: Record<string, string>, field: string): { option: number; value: string } | null {
  for (const group of product.configGroups) {
    for (const option of group.options) {
      if (option.name.startsWith(`${field}|`) && config[String(option.id)] !== undefined) return { option: option.id, value: config[String(option.id)] ?? '' };
    }
  }
  return null;
}

/** The OS label for a sub-option id of the product's OS option (null: not one of them). */
export function productOsLabel(product: SandboxProduct, subId: string): string | null {
  for (const group of product.configGroups) {
    for (const option of group.options) {
      if (!option.name.startsWith('os|')) continue;
      const sub = option.subs.find((s) => String(s.id) === subId);
      if (sub) return osLabel(sub.name);
    }
  }
  return null;
}

/** A new `Pending` host for one cart line; it gets its due date when the order is paid. */
export function createPurchasedHost(state: SandboxState, item: CartItem, now: number): SandboxHost {
  const product = findSandboxProduct(item.productId);
  const id = state.nextHostId;
  state.nextHostId += 1;
  const octet = (id % 250) + 2;
  const os = product ? optionValue(product, item.config, 'os') : null;
  const osName = product && os ? (productOsLabel(product, os.value) ?? '') : '';
  const ipCount = product ? Number(optionValue(product, item.config, 'ip_num')?.value ?? '1') : 1;
  const windows = osName.startsWith('Windows');
  return {
    id,
    productId: item.productId,
    productName: product?.name ?? `商品 ${item.productId}`,
    hostname: item.hostname || `srv${id}.example.net`,
    status: 'Pending',
    ip: `203.0.113.${octet}`,
    assignedIps: Array.from({ length: Math.max(0, ipCount - 1) }, (_, i) => `198.51.100.${(octet + i) % 255}`),
    username: windows ? 'administrator' : 'root',
    password: item.password || generateHostPassword(),
    port: windows ? 3389 : 22,
    os: osName,
    regDate: now,
    nextDueDate: 0,
    billingCycle: item.cycle,
    amount: item.amount,
    bwLimitGb: product?.type === 'dcim' ? 5000 : 1000,
    bwUsageGb: '0.00',
    extraTrafficGb: 0,
    power: 'on',
    config: item.config,
    provisioning: null,
  };
}
