import { describe, expect, it } from 'vitest';
import { normaliseCidr, parsePortRange } from '../../../domain/services/console/cidr.js';

describe('security rule CIDR and port range', () => {
  it.each([
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['203.0.113.0/24', '203.0.113.0/24'],
    ['198.51.100.7', '198.51.100.7/32'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
  ])('accepts %s as %s', (input, stored) => {
    expect(normaliseCidr(input)).toBe(stored);
  });

  it.each(['', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/8/8', '300.0.0.1/8', '010.0.0.1/8', 'example.com/24', '2001:db8::/129', 'fe80::1%eth0/64', '10.0.0.0/ 8', 'x'.repeat(60)])(
    'refuses %s',
    (input) => {
      expect(normaliseCidr(input)).toBeNull();
    },
  );

  it('reads single ports and ascending ranges within 1–65535 only', () => {
    expect(parsePortRange('22')).toEqual({ from: 22, to: 22 });
    expect(parsePortRange('1000-2000')).toEqual({ from: 1000, to: 2000 });
    for (const bad of ['0', '65536', '443-80', '1-', '-1', '1-2-3', 'ssh', '']) expect(parsePortRange(bad)).toBeNull();
  });
});
