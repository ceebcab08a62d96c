import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { AppConfig } from '../../lib/config.js';
import { validationError } from '../../lib/errors.js';

/** Loopback, private, link-local, CGNAT, unspecified, multicast and documentation ranges (IPv4 and IPv6). */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Whether upstream addresses (supplier base URLs, upstream console addresses) must be HTTPS/WSS
 * and public: in production, unless a staging deployment allows private upstreams
 * (`ALLOW_PRIVATE_UPSTREAMS`, docs/production.md "Development and production"). The one place
 * where NODE_ENV decides an address rule.
 */
export function upstreamAddressesMustBePublic(config: Pick<AppConfig, 'env' | 'allowPrivateUpstreams'>): boolean {
  return config.env === 'production' && !config.allowPrivateUpstreams;
}

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * A supplier address must be an absolute http(s) URL without credentials. In production (unless
 * private upstreams are allowed, `upstreamAddressesMustBePublic`) it must be HTTPS (spec: plain HTTP is refused in production) and every address its host resolves to
 * must be public, so an admin form cannot point the platform at internal services.
 */
export async function checkSupplierBaseUrl(config: AppConfig, value: string, resolve: Resolver = systemResolver): Promise<string> {
  const refuse = (message: string) => validationError({ base_url: [message] });
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw refuse('接口地址不是有效的网址');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('接口地址必须以 https:// 开头');
  if (url.username || url.password) throw refuse('接口地址不能包含账号或密码');
  if (url.search || url.hash) throw refuse('接口地址不能包含查询参数');
  if (!upstreamAddressesMustBePublic(config)) return url.toString().replace(/\/+$/, '');
  if (url.protocol !== 'https:') throw refuse('生产环境只允许 HTTPS 接口地址');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    throw refuse('无法解析接口地址的域名');
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) throw refuse('接口地址不能指向内网、回环或保留地址');
  return url.toString().replace(/\/+$/, '');
}
