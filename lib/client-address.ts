import { BlockList, isIP } from 'node:net';

/**
 * What `TRUST_PROXY=1` (or `true`) trusts: loopback, private (RFC 1918), link-local and IPv6
 * unique-local addresses, where a reverse proxy in front of the API normally sits.
 */
export const PRIVATE_RANGES = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
] as const;

const MAPPED_DOTTED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/**
 * A bare IP address in the form it is recorded, or '' when `value` is not one: IPv6 zone ids are
 * dropped and IPv4-mapped IPv6 (`::ffff:127.0.0.1`, how a dual-stack socket reports an IPv4 peer)
 * becomes the IPv4 address, so one client is one value in logs and in the per-address throttle.
 */
export function normaliseAddress(value: string): string {
  const address = value.trim().replace(/%[^%]*$/, '');
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return '';
  const dotted = MAPPED_DOTTED.exec(address);
  if (dotted) return dotted[1] as string;
  const hex = MAPPED_HEX.exec(address);
  if (hex) {
    const high = parseInt(hex[1] as string, 16);
    const low = parseInt(hex[2] as string, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return address.toLowerCase();
}

/** One `X-Forwarded-For` entry: a bare address, or the `1.2.3.4:port` / `[v6]:port` some proxies write. */
function forwardedAddress(entry: string): string {
  const trimmed = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed);
  if (bracketed) return normaliseAddress(bracketed[1] as string);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(trimmed);
  return normaliseAddress(v4WithPort ? (v4WithPort[1] as string) : trimmed);
}

/** The proxies whose `X-Forwarded-For` is believed (`TRUST_PROXY`); matching by `net.BlockList`. */
export class TrustedProxies {
  private readonly list = new BlockList();

  /** @param entries addresses or CIDR ranges, already validated by `parseTrustedProxies`. */
  constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      const [address, prefix] = entry.split('/') as [string, string | undefined];
      const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.list.addAddress(address, family);
      else this.list.addSubnet(address, Number(prefix), family);
    }
  }

  /** Whether `address` (normalised) is a trusted proxy. */
  has(address: string): boolean {
    if (this.entries.length === 0 || !address) return false;
    return this.list.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * Reads `TRUST_PROXY`: unset, empty, `0` or `false` trusts nobody; `1` or `true` trusts
 * `PRIVATE_RANGES`; anything else is a comma-separated list of IPv4/IPv6 addresses and CIDR
 * ranges. Throws naming the first bad entry, so a typo stops the process instead of silently
 * trusting nobody (or everybody).
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === '0' || text === 'false') return new TrustedProxies([]);
  if (text === '1' || text === 'true') return new TrustedProxies(PRIVATE_RANGES);
  const entries = text.split(',').map((raw) => {
    const entry = raw.trim();
    const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry);
    const address = match ? normaliseAddress(match[1] as string) : '';
    if (!match || !address) throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 127.0.0.1,10.0.0.0/8,::1)`);
    // Peers are compared in their normalised form: a zone id or an IPv4-mapped entry would never match.
    if (address !== match[1]) throw new Error(`"${entry}": write the address as ${address}`);
    const prefix = match[2];
    if (prefix === undefined) return address;
    const max = isIP(address) === 4 ? 32 : 128;
    if (Number(prefix) > max) throw new Error(`"${entry}": prefix length must be 0-${max}`);
    return `${address}/${Number(prefix)}`;
  });
  return new TrustedProxies(entries);
}

/**
 * The client's address: the direct peer, unless the peer is a trusted proxy. Then
 * `X-Forwarded-For` is walked from the right (the entry the nearest proxy appended) past every
 * trusted proxy, and the first untrusted address is the client; entries left of it were written
 * by the client itself and are ignored, so a spoofed leftmost entry changes nothing. An entry
 * that is not an address stops the walk at the last good hop.
 */
export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  let client = normaliseAddress(peer);
  if (!forwardedFor || !trusted.has(client)) return client;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = forwardedAddress(hops[i] as string);
    if (!hop) break;
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}
