import { describe, expect, it } from 'vitest';
import { encodeForm } from '../../../plugins/upstream/upstream_finance/client/form.js';
import { readJwtExpiry } from '../../../plugins/upstream/upstream_finance/client/jwt-expiry.js';
import { buildModuleActionRequest, buildModulePageRequest } from '../../../plugins/upstream/upstream_finance/client/module-request.js';
import { tokenCacheKey } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { FINANCE_PROVIDER_KEY } from '../../../plugins/upstream/upstream_finance/constants.js';
import { normalisePricing } from '../../../plugins/upstream/upstream_finance/normalise/pricing.js';

function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.signature`;
}

describe('upstream finance client helpers', () => {
  it('builds a custom module page request with the JWT scheme and id, key, jwt query parameters', () => {
    const request = buildModulePageRequest({ baseUrl: 'https://finance.example.com/api/', jwt: 'aaa.bbb.ccc', path: '/provision/custom/content', id: 5001, key: 'nat_rules' });
    expect(request.method).toBe('GET');
    expect(request.headers['Authorization']).toBe('JWT aaa.bbb.ccc');
    const url = new URL(request.url);
    expect(url.origin + url.pathname).toBe('https://finance.example.com/api/provision/custom/content');
    expect(Object.fromEntries(url.searchParams)).toEqual({ id: '5001', key: 'nat_rules', jwt: 'aaa.bbb.ccc' });
    expect(request.body).toBeUndefined();
  });

  it('builds a custom module action as a form post with the JWT scheme and no token in the URL', () => {
    const request = buildModuleActionRequest({
      baseUrl: 'http://127.0.0.1:9',
      jwt: 'aaa.bbb.ccc',
      path: '/provision/custom/5001',
      fields: { func: 'addNatRule', rule: { port: 22, protocol: 'tcp' } },
    });
    expect(request).toEqual({
      url: 'http://127.0.0.1:9/provision/custom/5001',
      method: 'POST',
      headers: { Authorization: 'JWT aaa.bbb.ccc', Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'func=addNatRule&rule%5Bport%5D=22&rule%5Bprotocol%5D=tcp',
    });
  });

  it('encodes forms with bracket keys for maps and arrays', () => {
    const body = encodeForm({ pid: 101, configoption: { 10101: 1010102, 10105: 2 }, hostid: [1, 2], skip: undefined, on: true });
    expect(decodeURIComponent(body)).toBe('pid=101&configoption[10101]=1010102&configoption[10105]=2&hostid[]=1&hostid[]=2&on=1');
  });

  it('reads the expiry of a JWT and tolerates garbage', () => {
    expect(readJwtExpiry(fakeJwt({ exp: 1_700_000_000 }))).toBe(1_700_000_000_000);
    expect(readJwtExpiry(fakeJwt({ sub: 'x' }))).toBeNull();
    expect(readJwtExpiry('not-a-jwt')).toBeNull();
  });

  it('keys the token cache by supplier and provider key, never by the hosting panel provider', () => {
    const base = { providerKey: FINANCE_PROVIDER_KEY, baseUrl: 'https://a.example', account: 'u', apiKey: 'k' };
    const one = tokenCacheKey({ ...base, supplierId: '1' });
    expect(one.startsWith('1:upstream_finance_api:')).toBe(true);
    expect(tokenCacheKey({ ...base, supplierId: '2' })).not.toBe(one);
    expect(tokenCacheKey({ ...base, supplierId: '1', apiKey: 'changed' })).not.toBe(one);
    expect(one).not.toContain('hosting_panel_api');
  });

  it('maps cycle names to our billing periods and rounds half-up to two digits', () => {
    expect(normalisePricing([['Month', '10.005'], ['annual', 120], ['hour', '0.1'], ['fourly', '1.00'], ['biennially', '-1.00'], ['free', '0']])).toEqual({
      monthly: '10.01',
      annually: '120.00',
      onetime: '0.00',
    });
  });
});
