import { describe, expect, it } from 'vitest';
import { throttleAddressKey } from '../../../domain/auth/login-throttle.js';

describe('the address a login throttle counts by', () => {
  it('is an IPv4 address as is, also when it arrives IPv4-mapped', () => {
    expect(throttleAddressKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(throttleAddressKey('::ffff:203.0.113.7', 64)).toBe('203.0.113.7');
    expect(throttleAddressKey('::FFFF:cb00:7107', 64)).toBe('203.0.113.7');
  });

  it('is the IPv6 prefix, whatever the spelling of the address', () => {
    const key = throttleAddressKey('2001:db8:1:2::a', 64);
    expect(key).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(throttleAddressKey('2001:0DB8:0001:0002:ffff:0:0:1', 64)).toBe(key);
    expect(throttleAddressKey('2001:db8:1:2::1%eth0', 64)).toBe(key);
    expect(throttleAddressKey('2001:db8:1:3::a', 64)).not.toBe(key);
    expect(throttleAddressKey('2001:db8:1:2::a', 48)).toBe('2001:db8:1:0:0:0:0:0/48');
    expect(throttleAddressKey('2001:db8:1:2:3:4:5:6', 56)).toBe('2001:db8:1:0:0:0:0:0/56');
    expect(throttleAddressKey('2001:db8:1:2:3:4:5:6', 128)).toBe('2001:db8:1:2:3:4:5:6/128');
    expect(throttleAddressKey('::1', 64)).toBe('0:0:0:0:0:0:0:0/64');
  });

  it('keeps anything else as text, and an unknown address empty', () => {
    expect(throttleAddressKey('', 64)).toBe('');
    expect(throttleAddressKey(' Not-An-Address ', 64)).toBe('not-an-address');
  });
});
