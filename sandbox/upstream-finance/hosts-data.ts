/** A host as the upstream stores it (field names follow the upstream's own). */
export type SandboxHost = {
  id: number;
  productId: number;
  productName: string;
  hostname: string;
  status: 'Pending' | 'Active' | 'Suspended' | 'Terminated' | 'Cancelled';
  ip: string;
  assignedIps: string[];
  username: string;
  password: string;
  port: number;
  os: string;
  regDate: number;
  nextDueDate: number;
  billingCycle: string;
  amount: string;
  bwLimitGb: number;
  bwUsageGb: string;
  /** Traffic added by paid traffic packages, on top of `bwLimitGb`. */
  extraTrafficGb: number;
  power: 'on' | 'off' | 'rescue';
  /** Config chosen at purchase (option id → sub-option id or quantity); empty for seeded hosts. */
  config: Record<string, string>;
  /** Set while a paid host waits to become active (slow provisioning). */
  provisioning: { pollsLeft: number; readyAt: number } | null;
};

const PRODUCTS = [
  { id: 101, name: '香港云服务器 标准型', amount: '59.00', os: 'CentOS 7.9 64位' },
  { id: 201, name: '裸金属服务器 E5-2680v4', amount: '899.00', os: 'Ubuntu 22.04 LTS 64位' },
  { id: 102, name: '美国洛杉矶云服务器 CN2 GIA', amount: '79.00', os: 'Windows Server 2019 数据中心版 64位' },
] as const;

const DAY = 86_400;
/** A fixed reference time keeps generated hosts stable between runs. */
const EPOCH = Date.UTC(2024, 0, 1) / 1000;

/** Builds the n-th host of an account (stable content for a given id). */
export function buildSandboxHost(id: number, index: number): SandboxHost {
  const product = PRODUCTS[index % PRODUCTS.length] ?? PRODUCTS[0];
  const statuses: SandboxHost['status'][] = ['Active', 'Active', 'Active', 'Suspended', 'Pending'];
  const octet = (id % 250) + 2;
  const isWindows = product.os.startsWith('Windows');
  return {
    id,
    productId: product.id,
    productName: product.name,
    hostname: `srv${id}.example.net`,
    status: statuses[index % statuses.length] ?? 'Active',
    ip: `203.0.113.${octet}`,
    assignedIps: index % 2 === 0 ? [`198.51.100.${octet}`, `198.51.100.${(octet + 1) % 255}`] : [],
    username: isWindows ? 'administrator' : 'root',
    password: `Pw-${id}-sandbox!`,
    port: isWindows ? 3389 : 22,
    os: product.os,
    regDate: EPOCH + index * DAY,
    nextDueDate: EPOCH + (index + 30) * DAY,
    billingCycle: 'monthly',
    amount: product.amount,
    bwLimitGb: 1000,
    bwUsageGb: `${(index * 3.5).toFixed(2)}`,
    extraTrafficGb: 0,
    power: 'on',
    config: {},
    provisioning: null,
  };
}
