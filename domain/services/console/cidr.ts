import { isIP } from 'node:net';

/** `203.0.113.0/24`, `0.0.0.0/0`, `2001:db8::/32`, or a bare address (taken as a single host). */
export function parseCidr(value: string): { address: string; prefix: number; version: 4 | 6 } | null {
  // No zone ids (`fe80::1%eth0`): a firewall rule names networks, not interfaces.
  if (value.length > 49 || value.includes('%')) return null;
  const [address = '', prefixText, extra] = value.trim().split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version !== 4 && version !== 6) return null;
  // Only canonical decimal parts: `isIP` accepts no leading zeros in IPv4 already.
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, version };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, version } : null;
}

/** The CIDR as stored and sent upstream: `address/prefix`. */
export function normaliseCidr(value: string): string | null {
  const parsed = parseCidr(value);
  return parsed ? `${parsed.address.toLowerCase()}/${parsed.prefix}` : null;
}

/** `80` or `1000-2000` within 1–65535, ascending. */
export function parsePortRange(value: string): { from: number; to: number } | null {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value.trim());
  if (!m) return null;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from >= 1 && to <= 65535 && from <= to ? { from, to } : null;
}
