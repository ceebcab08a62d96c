/**
 * The sandbox catalogue, in member prices (what a logged-in reseller pays). Anonymous visitors
 * see higher prices (`VISITOR_MARKUP`), which is the trap the client must avoid.
 */
export type SandboxCycle = 'hour' | 'monthly' | 'quarterly' | 'semiannually' | 'annually' | 'biennially' | 'triennially' | 'onetime';

export type SandboxSubOption = { id: number; name: string; monthly: string; qtyMin?: number; qtyMax?: number };

export type SandboxOption = {
  id: number;
  name: string;
  type: number;
  hidden?: boolean;
  unit: string;
  qtyMin: number;
  qtyMax: number;
  subs: SandboxSubOption[];
};

export type SandboxProduct = {
  id: number;
  groupId: number;
  type: 'cloud' | 'dcim' | 'cdn' | 'hosting';
  name: string;
  description: string;
  stock: { control: boolean; qty: number };
  /** Member price per cycle; `-1.00` marks a cycle that is switched off. */
  cycles: Partial<Record<SandboxCycle, string>>;
  configGroups: { id: number; name: string; options: SandboxOption[] }[];
};

export type SandboxGroup = { id: number; name: string; products: SandboxProduct[] };

export const VISITOR_MARKUP = '1.2';

type SubSpec = [name: string, monthly: string];

function option(id: number, name: string, type: number, unit: string, subs: SubSpec[], extra: Partial<SandboxOption> = {}): SandboxOption {
  return {
    id,
    name,
    type,
    unit,
    qtyMin: 0,
    qtyMax: 0,
    subs: subs.map(([subName, monthly], index) => ({ id: id * 100 + index + 1, name: subName, monthly })),
    ...extra,
  };
}

const OS_SUBS: SubSpec[] = [
  ['1|CentOS^7.9 64位', '0'],
  ['2|Ubuntu^22.04 LTS 64位', '0'],
  ['3|Ubuntu^20.04 LTS 64位', '0'],
  ['4|Debian^12 64位', '0'],
  ['5|Windows^Server 2019 数据中心版 64位', '20'],
  ['6|Windows^Server 2022 数据中心版 64位', '20'],
];

function computeOptions(pid: number, areas: SubSpec[], withSnapshot: boolean): SandboxOption[] {
  const base = pid * 100;
  const options = [
    option(base + 1, 'cpu|CPU', 6, '核', [['1|1核', '0'], ['2|2核', '20'], ['4|4核', '60'], ['8|8核', '140']]),
    option(base + 2, 'memory|内存', 8, 'MB', [['1024|1GB', '0'], ['2048|2GB', '15'], ['4096|4GB', '45'], ['8192|8GB', '105']]),
    option(base + 3, 'system_disk_size|系统盘', 13, 'GB', [['40|40GB', '0'], ['80|80GB', '8'], ['160|160GB', '24']]),
    option(base + 4, 'bw|带宽', 10, 'Mbps', [['5|5Mbps', '0'], ['10|10Mbps', '30'], ['20|20Mbps', '80']]),
    option(base + 5, 'ip_num|IP数量', 4, '个', [['1|个', '15']], { qtyMin: 1, qtyMax: 8 }),
    option(base + 6, 'area|地域', 12, '', areas),
    option(base + 7, 'os|操作系统', 5, '', OS_SUBS),
  ];
  if (withSnapshot) options.push(option(base + 8, 'snapshot_num|快照数量', 4, '个', [['1|个', '5']], { qtyMin: 0, qtyMax: 5 }));
  return options;
}

function cloud(id: number, name: string, description: string, monthly: string, areas: SubSpec[], stock: SandboxProduct['stock']): SandboxProduct {
  return {
    id,
    groupId: 1,
    type: 'cloud',
    name,
    description,
    stock,
    cycles: { hour: '0.1200', monthly, quarterly: '169.00', semiannually: '319.00', annually: '599.00', biennially: '-1.00' },
    configGroups: [{ id: id * 10, name: '基础配置', options: computeOptions(id, areas, true) }],
  };
}

function dedicated(id: number, name: string, description: string, monthly: string, annually: string): SandboxProduct {
  const base = id * 100;
  return {
    id,
    groupId: 2,
    type: 'dcim',
    name,
    description,
    stock: { control: true, qty: 3 },
    cycles: { monthly, quarterly: '-1.00', annually, triennially: '-1.00' },
    configGroups: [
      {
        id: id * 10,
        name: '硬件配置',
        options: [
          option(base + 1, 'memory|内存', 9, 'GB', [['32|32GB', '0'], ['64|64GB', '200']]),
          option(base + 2, 'bw|带宽', 11, 'Mbps', [['30|30Mbps', '0'], ['100|100Mbps', '300']]),
          option(base + 3, 'ip_num|IP数量', 4, '个', [['1|个', '30']], { qtyMin: 1, qtyMax: 16 }),
          option(base + 4, 'area|机房', 12, '', [['hk-kwaichung^香港葵涌', '0'], ['us-lax^美国洛杉矶', '0']]),
          option(base + 5, 'os|操作系统', 5, '', OS_SUBS),
        ],
      },
    ],
  };
}

const HK_AREAS: SubSpec[] = [['hk^中国香港', '0'], ['sg^新加坡', '10']];

export const SANDBOX_CATALOGUE: SandboxGroup[] = [
  {
    id: 1,
    name: '云服务器',
    products: [
      cloud(101, '香港云服务器 标准型', '香港 CN2 线路，KVM 架构，SSD 存储', '59.00', HK_AREAS, { control: true, qty: 50 }),
      cloud(102, '美国洛杉矶云服务器 CN2 GIA', '回国 CN2 GIA 优化线路', '79.00', [['us-lax^美国洛杉矶', '0']], { control: false, qty: 0 }),
      cloud(103, '国内 BGP 多线云服务器', '多线 BGP 接入，需实名认证', '69.00', [['cn-gz^中国广州', '0']], { control: true, qty: 0 }),
    ],
  },
  {
    id: 2,
    name: '裸金属与独立服务器',
    products: [
      dedicated(201, '裸金属服务器 E5-2680v4', '双路 E5-2680v4，28 核 56 线程', '899.00', '9699.00'),
      dedicated(202, '香港独立服务器 E3-1230v3', '单路 E3-1230v3，适合建站', '499.00', '5399.00'),
    ],
  },
  {
    id: 3,
    name: 'CDN 加速',
    products: [
      {
        id: 301,
        groupId: 3,
        type: 'cdn',
        name: 'CDN 加速 基础版',
        description: '全球节点加速，含 HTTPS',
        stock: { control: false, qty: 0 },
        cycles: { monthly: '99.00', annually: '999.00' },
        configGroups: [
          { id: 3010, name: '加速配置', options: [option(30101, 'area|加速区域', 12, '', [['cn^中国大陆', '0'], ['global^全球', '50']]), option(30102, 'bw|峰值带宽', 10, 'Mbps', [['100|100Mbps', '0'], ['500|500Mbps', '200']])] },
        ],
      },
      {
        id: 302,
        groupId: 3,
        type: 'cdn',
        name: 'CDN 流量包 1TB',
        description: '一次性流量包，一年内有效',
        stock: { control: false, qty: 0 },
        cycles: { onetime: '120.00' },
        configGroups: [],
      },
    ],
  },
  {
    id: 4,
    name: '虚拟主机',
    products: [
      {
        id: 401,
        groupId: 4,
        type: 'hosting',
        name: '香港虚拟主机 入门型',
        description: '1GB 网页空间，免备案',
        stock: { control: true, qty: 200 },
        cycles: { monthly: '25.00', annually: '199.00' },
        configGroups: [{ id: 4010, name: '主机配置', options: [option(40101, 'area|机房', 12, '', [['hk^中国香港', '0']]), option(40102, 'disk_space|网页空间', 1, 'GB', [['1|1GB', '0'], ['5|5GB', '20']])] }],
      },
      {
        id: 402,
        groupId: 4,
        type: 'hosting',
        name: '企业建站主机 Windows',
        description: 'Windows + IIS，支持 ASP.NET',
        stock: { control: false, qty: 0 },
        cycles: { annually: '399.00', biennially: '719.00', triennially: '999.00' },
        configGroups: [{ id: 4020, name: '主机配置', options: [option(40201, 'area|机房', 12, '', [['cn-sh^中国上海', '0']])] }],
      },
    ],
  },
];

export function findSandboxProduct(pid: number): SandboxProduct | undefined {
  for (const group of SANDBOX_CATALOGUE) {
    const product = group.products.find((p) => p.id === pid);
    if (product) return product;
  }
  return undefined;
}
