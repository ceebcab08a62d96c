import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type CatalogueBench = {
  productId: number;
  listTotal: number;
  quoteBody: string;
  /** Bytes of the public first-screen answers, printed beside the figures. */
  sizes: Array<{ path: string; bytes: number }>;
  /** For the bare baseline: bare path → the `data` the API answered. */
  fixturesPath: string;
};

export const CATALOGUE_LIST_QUERY = 'page=1&page_size=20';
/** A product with the whole option set (cpu, memory, area, os, disk, bandwidth, ip). */
const BENCH_PRODUCT = '标准型 S2';
export const QUOTE_SELECTION = { billing_period: 'annually', config: { cpu: 2, memory: 2, area: 2, os: 6, system_disk_size: 80, bw: 20, ip_num: 2 }, quantity: 2 };

async function call(url: string, init: RequestInit = {}): Promise<{ data: unknown; bytes: number }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const body = JSON.parse(text) as { code: number; data: unknown };
  if (res.status !== 200 || body.code !== 0) throw new Error(`${url} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  return { data: body.data, bytes: Buffer.byteLength(text) };
}

/**
 * Reads, once, what the API answers for the benched catalogue requests, so the bare baseline
 * can answer exactly the same JSON from memory; also measures the first-screen sizes.
 */
export async function prepareCatalogueBench(api: string): Promise<CatalogueBench> {
  const found = await call(`${api}/api/v2/site/products?keyword=${encodeURIComponent(BENCH_PRODUCT)}`);
  const product = (found.data as { list: Array<{ id: number }> }).list[0];
  if (!product) throw new Error(`bench product ${BENCH_PRODUCT} not seeded`);
  const quoteBody = JSON.stringify(QUOTE_SELECTION);
  const [list, detail, quote, home, menus, config] = await Promise.all([
    call(`${api}/api/v2/site/products?${CATALOGUE_LIST_QUERY}`),
    call(`${api}/api/v2/site/products/${product.id}`),
    call(`${api}/api/v2/site/products/${product.id}/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: quoteBody }),
    call(`${api}/api/v2/site/home`),
    call(`${api}/api/v2/site/product-menus`),
    call(`${api}/api/v2/site/config`),
  ]);
  const fixturesPath = join(mkdtempSync(join(tmpdir(), 'bench-catalogue-')), 'fixtures.json');
  writeFileSync(fixturesPath, JSON.stringify({ '/site/products': list.data, '/site/product': detail.data, '/site/quote': quote.data }));
  return {
    productId: product.id,
    listTotal: (list.data as { total: number }).total,
    quoteBody,
    sizes: [
      { path: '/api/v2/site/home', bytes: home.bytes },
      { path: '/api/v2/site/product-menus', bytes: menus.bytes },
      { path: '/api/v2/site/config', bytes: config.bytes },
      { path: `/api/v2/site/products?${CATALOGUE_LIST_QUERY}`, bytes: list.bytes },
      { path: `/api/v2/site/products/${product.id}`, bytes: detail.bytes },
      { path: `/api/v2/site/products/${product.id}/quote`, bytes: quote.bytes },
    ],
    fixturesPath,
  };
}
