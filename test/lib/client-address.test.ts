import { describe, expect, it } from 'vitest';
import { clientAddress, normaliseAddress, parseTrustedProxies, PRIVATE_RANGES } from '../../lib/client-address.js';
import { ConfigError, loadConfig } from '../../lib/config.js';

const BASE = { DATABASE_URL: 'postgres://x/y', TEMPORAL_ADDRESS: '127.0.0.1:7233', APP_SECRET_KEY: 'k'.repeat(40) };

describe('TRUST_PROXY', () => {
  it('trusts nobody when unset, empty, 0 or false', () => {
    for (const value of [undefined, '', '0', 'false', ' FALSE ']) {
      const trusted = parseTrustedProxies(value);
      expect(trusted.entries).toEqual([]);
      expect(trusted.has('127.0.0.1')).toBe(false);
    }
    expect(loadConfig(BASE).trustedProxies.entries).toEqual([]);
  });

  it('reads 1 and true as loopback and the private ranges', () => {
    for (const value of ['1', 'true', 'TRUE']) expect(parseTrustedProxies(value).entries).toEqual(PRIVATE_RANGES);
    const trusted = parseTrustedProxies('1');
    for (const inside of ['127.0.0.1', '10.1.2.3', '172.31.255.1', '192.168.0.9', '::1', 'fd12::1']) expect(trusted.has(inside), inside).toBe(true);
    for (const outside of ['8.8.8.8', '172.32.0.1', '203.0.113.5', '2001:db8::1']) expect(trusted.has(outside), outside).toBe(false);
  });

  it('reads a list of IPv4 and IPv6 addresses and CIDR ranges', () => {
    const trusted = loadConfig({ ...BASE, TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,2001:DB8::/32 ,::1' }).trustedProxies;
    expect(trusted.entries).toEqual(['127.0.0.1', '10.0.0.0/8', '2001:db8::/32', '::1']);
    for (const inside of ['127.0.0.1', '10.200.0.1', '2001:db8:1::5', '::1', '::ffff:10.0.0.1']) expect(trusted.has(normaliseAddress(inside)), inside).toBe(true);
    for (const outside of ['127.0.0.2', '11.0.0.1', '2001:db9::1']) expect(trusted.has(outside), outside).toBe(false);
  });

  it('refuses a bad entry, naming the variable and the entry', () => {
    for (const bad of ['yes', '10.0.0.0/33', '::1/129', '10.0.0.256', '10.0.0.0/', 'proxy.example.com', '127.0.0.1,,10.0.0.1', '::ffff:10.0.0.1', 'fe80::1%eth0']) {
      expect(() => loadConfig({ ...BASE, TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...BASE, TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
    expect(() => loadConfig({ ...BASE, TRUST_PROXY: '10.0.0.0/8,bogus' })).toThrow(/"bogus"/);
  });
});

describe('CORS_ORIGINS', () => {
  it('is empty by default and reads exact origins', () => {
    expect(loadConfig(BASE).corsOrigins).toEqual([]);
    expect(loadConfig({ ...BASE, CORS_ORIGINS: 'https://shop.example.com, http://localhost:5173' }).corsOrigins).toEqual([
      'https://shop.example.com',
      'http://localhost:5173',
    ]);
  });

  it('refuses anything but scheme://host[:port]', () => {
    for (const bad of ['*', 'shop.example.com', 'https://shop.example.com/', 'https://shop.example.com/app', 'ftp://x.example.com']) {
      expect(() => loadConfig({ ...BASE, CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });
});

describe('client address', () => {
  const trusted = parseTrustedProxies('127.0.0.1,10.0.0.0/8');

  it('is the socket peer, IPv4-mapped IPv6 written as IPv4', () => {
    expect(clientAddress('::ffff:203.0.113.5', undefined, trusted)).toBe('203.0.113.5');
    expect(clientAddress('::ffff:cb00:7105', undefined, trusted)).toBe('203.0.113.5');
    expect(clientAddress('2001:DB8::1', undefined, trusted)).toBe('2001:db8::1');
    expect(clientAddress('', undefined, trusted)).toBe('');
  });

  it('ignores X-Forwarded-For when nobody is trusted, or when the peer is not a trusted proxy', () => {
    expect(clientAddress('127.0.0.1', '198.51.100.7', parseTrustedProxies(undefined))).toBe('127.0.0.1');
    expect(clientAddress('203.0.113.9', '198.51.100.7', trusted)).toBe('203.0.113.9');
  });

  it('walks X-Forwarded-For from the right past trusted proxies and takes the first untrusted hop', () => {
    expect(clientAddress('::ffff:127.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '198.51.100.7, 10.0.0.2,10.0.0.3', trusted)).toBe('198.51.100.7');
    // The client wrote the leftmost entries itself: they never win over the hop a proxy saw.
    expect(clientAddress('127.0.0.1', '1.1.1.1, 6.6.6.6, 198.51.100.7, 10.0.0.2', trusted)).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '10.0.0.9, 10.0.0.2', trusted)).toBe('10.0.0.9');
  });

  it('reads ports and brackets some proxies add, and stops at an entry that is no address', () => {
    expect(clientAddress('127.0.0.1', '198.51.100.7:4711', trusted)).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '[2001:db8::7]:443', trusted)).toBe('2001:db8::7');
    expect(clientAddress('127.0.0.1', 'unknown, 10.0.0.2', trusted)).toBe('10.0.0.2');
    expect(clientAddress('127.0.0.1', '', trusted)).toBe('127.0.0.1');
  });
});
