import { BILLING_PERIODS, type BillingPeriod } from '../../domain/catalogue/billing-periods.js';
import type { PricingMap } from '../../domain/catalogue/pricing-map.js';
import type { ProductType } from '../../db/models/catalogue.js';
import { formatMoney, money } from '../../lib/money.js';

/** Months and discount of each period the demo prices: quarterly 5 % off, annually 15 % off. */
const PERIODS: Partial<Record<BillingPeriod, { months: number; factor: string }>> = {
  monthly: { months: 1, factor: '1' },
  quarterly: { months: 3, factor: '0.95' },
  annually: { months: 12, factor: '0.85' },
};

/** An add-on price: nothing for a zero amount (no quote line), otherwise `prices`. */
function extra(monthly: string): PricingMap {
  return money(monthly).isZero() ? {} : prices(monthly);
}

/** A pricing map from a monthly amount (decimal strings all the way). */
export function prices(monthly: string): PricingMap {
  const map: PricingMap = {};
  for (const period of BILLING_PERIODS) {
    const p = PERIODS[period];
    if (p) map[period] = formatMoney(money(monthly).times(p.months).times(p.factor));
  }
  return map;
}

const cpu = (cores: number[], perCore: string) => ({
  field: 'cpu',
  name: 'CPU',
  option_type: 6,
  unit: '核',
  sub: cores.map((n, i) => ({ id: i + 1, value: String(n), label: `${n} 核`, pricing: extra(money(perCore).times(n - (cores[0] ?? n)).toFixed(2)) })),
});

const memory = (gigabytes: number[], perGb: string) => ({
  field: 'memory',
  name: '内存',
  option_type: 8,
  unit: 'GB',
  sub: gigabytes.map((n, i) => ({ id: i + 1, value: String(n), label: `${n} GB`, pricing: extra(money(perGb).times(n - (gigabytes[0] ?? n)).toFixed(2)) })),
});

const area = (regions: Array<[string, string, string]>) => ({
  field: 'area',
  name: '地域',
  option_type: 12,
  sub: regions.map(([value, label, amount], i) => ({ id: i + 1, value, label, pricing: extra(amount) })),
});

const os = () => ({
  field: 'os',
  name: '操作系统',
  option_type: 5,
  sub: [
    { id: 1, value: 'centos-7.9', label: 'CentOS 7.9', version: 'CentOS^7.9', pricing: {} },
    { id: 2, value: 'centos-stream-9', label: 'CentOS Stream 9', version: 'CentOS^Stream 9', pricing: {} },
    { id: 3, value: 'ubuntu-22.04', label: 'Ubuntu 22.04 LTS', version: 'Ubuntu^22.04', pricing: {} },
    { id: 4, value: 'ubuntu-24.04', label: 'Ubuntu 24.04 LTS', version: 'Ubuntu^24.04', pricing: {} },
    { id: 5, value: 'debian-12', label: 'Debian 12', version: 'Debian^12', pricing: {} },
    { id: 6, value: 'windows-2019', label: 'Windows Server 2019 数据中心版', version: 'Windows^Server 2019', pricing: prices('30.00') },
    { id: 7, value: 'windows-2022', label: 'Windows Server 2022 数据中心版', version: 'Windows^Server 2022', pricing: prices('30.00') },
  ],
});

const systemDisk = (min: number, max: number) => ({
  field: 'system_disk_size',
  name: '系统盘',
  option_type: 15,
  unit: 'GB',
  qty_minimum: min,
  qty_maximum: max,
  sub: [
    { id: 1, value: 'ssd-small', label: `${min}-100 GB`, qty_minimum: min, qty_maximum: 100, pricing: prices('0.20') },
    { id: 2, value: 'ssd-large', label: `101-${max} GB`, qty_minimum: 101, qty_maximum: max, pricing: prices('0.15') },
  ],
});

const bandwidth = (min: number, max: number) => ({
  field: 'bw',
  name: '带宽',
  option_type: 15,
  unit: 'Mbps',
  qty_minimum: min,
  qty_maximum: max,
  sub: [
    { id: 1, value: 'bw-low', label: `${min}-10 Mbps`, qty_minimum: min, qty_maximum: 10, pricing: prices('6.00') },
    { id: 2, value: 'bw-high', label: `11-${max} Mbps`, qty_minimum: 11, qty_maximum: max, pricing: prices('5.00') },
  ],
});

const ipCount = (max: number) => ({
  field: 'ip_num',
  name: 'IP 数量',
  option_type: 4,
  unit: '个',
  qty_minimum: 1,
  qty_maximum: max,
  sub: [{ id: 1, value: 'ipv4', label: '独立 IPv4', qty_minimum: 1, qty_maximum: max, pricing: prices('5.00') }],
});

const REGIONS: Array<[string, string, string]> = [
  ['cn-hongkong', '中国香港', '0.00'],
  ['ap-singapore', '新加坡', '5.00'],
  ['ap-tokyo', '日本东京', '8.00'],
  ['us-west', '美国洛杉矶', '0.00'],
];
const MAINLAND: Array<[string, string, string]> = [
  ['cn-hangzhou', '华东（杭州）', '0.00'],
  ['cn-beijing', '华北（北京）', '0.00'],
  ['cn-shenzhen', '华南（深圳）', '2.00'],
];

/** A compute product's options: the full set the storefront renders. */
function compute(cores: number[], gigabytes: number[], regions = REGIONS) {
  return [cpu(cores, '15.00'), memory(gigabytes, '8.00'), area(regions), os(), systemDisk(20, 500), bandwidth(1, 100), ipCount(8)];
}

export type DemoProduct = { name: string; display_name: string; description: string; monthly: string; config_options: unknown[]; stock?: number };
export type DemoCategory = { name: string; products: DemoProduct[] };
export type DemoGroup = { name: string; description: string; categories: DemoCategory[] };
export type DemoMenu = { key: string; name: string; icon: string; product_type: ProductType; groups: DemoGroup[] };

const p = (name: string, monthly: string, config_options: unknown[], description: string, stock?: number): DemoProduct => ({
  name,
  display_name: name,
  description,
  monthly,
  config_options,
  ...(stock === undefined ? {} : { stock }),
});

/** The demo catalogue: a menu for each of the 8 types, their groups, categories and products. */
export const DEMO_CATALOGUE: DemoMenu[] = [
  {
    key: 'cloud',
    name: '云服务器',
    icon: 'cloud-server',
    product_type: 'cloud_server',
    groups: [
      {
        name: '海外云服务器',
        description: '香港、新加坡、东京、洛杉矶节点，免备案',
        categories: [
          {
            name: '标准型',
            products: [
              p('标准型 S1', '29.90', compute([1, 2], [1, 2]), '入门建站与测试环境，1 核起步'),
              p('标准型 S2', '59.90', compute([2, 4], [4, 8]), '中小型网站与应用'),
              p('标准型 S3', '119.00', compute([4, 8], [8, 16]), '业务系统与数据库', 50),
            ],
          },
          { name: '计算型', products: [p('计算型 C1', '89.00', compute([2, 4, 8], [4, 8]), '高主频计算'), p('计算型 C2', '169.00', compute([8, 16], [16, 32]), '批处理与渲染')] },
        ],
      },
      {
        name: '国内云服务器',
        description: '华东、华北、华南节点，需备案',
        categories: [{ name: '通用型', products: [p('通用型 G1', '39.90', compute([1, 2], [2, 4], MAINLAND), '国内通用型'), p('通用型 G2', '79.90', compute([2, 4], [4, 8], MAINLAND), '国内通用型增强')] }],
      },
    ],
  },
  {
    key: 'game',
    name: '游戏云',
    icon: 'game-cloud',
    product_type: 'game_cloud',
    groups: [
      {
        name: '游戏专区',
        description: '预装游戏服务端，开服即玩',
        categories: [
          { name: '我的世界', products: [p('我的世界 入门服', '49.00', compute([2, 4], [4, 8]), '10 人以内'), p('我的世界 进阶服', '99.00', compute([4, 8], [8, 16]), '50 人以内')] },
          { name: '幻兽帕鲁', products: [p('幻兽帕鲁 4 人服', '69.00', compute([4], [16]), '4 人联机'), p('幻兽帕鲁 16 人服', '139.00', compute([8], [32]), '16 人联机', 0)] },
        ],
      },
    ],
  },
  {
    key: 'desktop',
    name: '云桌面',
    icon: 'cloud-desktop',
    product_type: 'cloud_desktop',
    groups: [{ name: '办公桌面', description: '随时随地远程办公', categories: [{ name: '标准办公', products: [p('办公桌面 基础版', '59.00', [cpu([2], '0'), memory([4, 8], '8.00'), area(MAINLAND)], '文档与网页办公'), p('办公桌面 专业版', '129.00', [cpu([4, 8], '15.00'), memory([8, 16], '8.00'), area(MAINLAND)], '设计与开发')] }] }],
  },
  {
    key: 'baremetal',
    name: '裸金属服务器',
    icon: 'bare-metal',
    product_type: 'bare_metal',
    groups: [{ name: '高性能裸金属', description: '独享物理资源，云化交付', categories: [{ name: '至强系列', products: [p('至强 E5 裸金属', '699.00', [area(REGIONS), os(), bandwidth(5, 100), ipCount(8)], '2×E5-2680v4，64 GB'), p('至强金牌 裸金属', '1299.00', [area(REGIONS), os(), bandwidth(10, 100), ipCount(8)], '2×Gold 6248，128 GB', 3)] }] }],
  },
  {
    key: 'cdn',
    name: 'CDN',
    icon: 'cdn',
    product_type: 'cdn',
    groups: [
      {
        name: '全站加速',
        description: '静态与动态内容加速',
        categories: [{ name: '流量包', products: [p('CDN 100GB 流量包', '19.90', [area([['cn-mainland', '中国大陆', '0.00'], ['global', '全球（不含大陆）', '10.00']])], '月度有效'), p('CDN 1TB 流量包', '149.00', [area([['cn-mainland', '中国大陆', '0.00'], ['global', '全球（不含大陆）', '80.00']])], '月度有效')] }],
      },
    ],
  },
  {
    key: 'other',
    name: '上游精选',
    icon: 'plugin',
    product_type: 'other',
    groups: [{ name: '上游商品', description: '由上游插件提供购买与控制台', categories: [{ name: '上游 VPS', products: [p('上游 VPS 标准版', '35.00', compute([1, 2], [1, 2]), '通过上游供应商开通')] }] }],
  },
  {
    key: 'physical',
    name: '物理机',
    icon: 'physical-machine',
    product_type: 'physical_machine',
    groups: [{ name: '独立服务器', description: '机房托管的整机', categories: [{ name: '单路', products: [p('单路 E3 物理机', '399.00', [area(MAINLAND), os(), bandwidth(10, 100), ipCount(4)], 'E3-1230v6，32 GB')] }, { name: '双路', products: [p('双路 E5 物理机', '799.00', [area(MAINLAND), os(), bandwidth(10, 100), ipCount(8)], '2×E5-2690v4，128 GB')] }] }],
  },
  {
    key: 'hosting',
    name: '虚拟主机',
    icon: 'web-hosting',
    product_type: 'web_hosting',
    groups: [
      {
        name: '建站主机',
        description: '面板管理，一键建站',
        categories: [
          { name: 'Linux 主机', products: [p('Linux 入门主机', '9.90', [area(MAINLAND), systemDisk(20, 200)], 'PHP、MySQL'), p('Linux 企业主机', '39.90', [area(MAINLAND), systemDisk(50, 500)], '企业官网')] },
          { name: 'Windows 主机', products: [p('Windows 主机', '19.90', [area(MAINLAND), systemDisk(20, 200)], 'ASP.NET、SQL Server')] },
        ],
      },
    ],
  },
];
