import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchRequest, bareAnswerKey } from './bench-request.js';

/** One mixed public catalogue load: the requests rotated over (the same list for our side and the bare side). */
export type CatalogueMix = { requests: BenchRequest[]; distinct: number; withOrigin: number };

export type CatalogueBench = {
  /** The storefront origin sent on the `Origin` share (the API runs with it in `CORS_ORIGINS`). */
  origin: string;
  /** Many list URLs (pages, sorts, every menu, group and category), every listed product's detail, quotes over many products and selections. */
  lists: CatalogueMix;
  details: CatalogueMix;
  quotes: CatalogueMix;
  /** Every detail with `Origin`: the whole chain on a cache hit, for the record. */
  detailsThroughChain: CatalogueMix;
  /** Bytes of the public first-screen answers, printed beside the figures. */
  sizes: Array<{ path: string; bytes: number }>;
  /** For the bare baseline: request key (`bareAnswerKey`) → the `data` the API answered. */
  fixturesPath: string;
};

export const CATALOGUE_LIST_QUERY = 'page=1&page_size=20';
/** A product with the whole option set (cpu, memory, area, os, disk, bandwidth, ip). */
export const BENCH_PRODUCT = '标准型 S2';
export const QUOTE_SELECTION = { billing_period: 'annually', config: { cpu: 2, memory: 2, area: 2, os: 6, system_disk_size: 80, bw: 20, ip_num: 2 }, quantity: 2 };
/** An allowed storefront origin (`CORS_ORIGINS` of the benched API). */
export const STOREFRONT_ORIGIN = 'https://shop.bench.test';
/** The share of each mixed pair's requests sent with `Origin`, as a storefront on another origin sends them. */
export const ORIGIN_SHARE = 0.3;
/** Requests in one rotation of a mixed pair (each connection walks the list in order, then again). */
const ROTATION = 1_000;

type Answer = { status: number; data: unknown; bytes: number; text: string };

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: { code?: number; data?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Judged by the status below.
  }
  return { status: res.status === 200 && body.code === 0 ? 200 : res.status || 500, data: body.data, bytes: Buffer.byteLength(text), text };
}

async function must(url: string, init: RequestInit = {}): Promise<Answer> {
  const answer = await call(url, init);
  if (answer.status !== 200) throw new Error(`${url} answered HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer;
}

/** A small deterministic generator (mulberry32): the same mix every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `ROTATION` requests drawn evenly over `distinct`, shuffled, `ORIGIN_SHARE` of them with the storefront's `Origin`. */
function mix(distinct: BenchRequest[], seed: number, originShare = ORIGIN_SHARE): CatalogueMix {
  const next = random(seed);
  const requests: BenchRequest[] = [];
  for (let i = 0; i < ROTATION; i += 1) {
    const request = distinct[i % distinct.length] as BenchRequest;
    requests.push(next() < originShare ? { ...request, headers: { ...request.headers, origin: STOREFRONT_ORIGIN } } : request);
  }
  for (let i = requests.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [requests[i], requests[j]] = [requests[j] as BenchRequest, requests[i] as BenchRequest];
  }
  return { requests, distinct: distinct.length, withOrigin: requests.filter((r) => r.headers?.origin !== undefined).length };
}

type ListedProduct = { id: number; name: string; first_product_group_id: number; second_product_group_id: number | null; product_group_id: number | null };

/**
 * Reads, once, what the API answers for every benched catalogue request, so the bare baseline
 * can answer exactly the same JSON from memory; also measures the first-screen sizes. Quote
 * selections are probed: those the API refuses (an option a product lacks) are left out.
 */
export async function prepareCatalogueBench(api: string): Promise<CatalogueBench> {
  const fixtures: Record<string, unknown> = {};
  const keep = (request: BenchRequest, answer: Answer) => {
    fixtures[bareAnswerKey(request.method, request.path, request.body)] = answer.data;
  };
  const get = async (path: string): Promise<Answer> => {
    const answer = await must(`${api}${path}`);
    keep({ method: 'GET', path }, answer);
    return answer;
  };

  // Every listed product (pages of 100), and from them every menu, group and category.
  const products: ListedProduct[] = [];
  for (let page = 1; ; page += 1) {
    const { data } = await must(`${api}/api/v2/site/products?page=${page}&page_size=100`);
    const { list, total } = data as { list: ListedProduct[]; total: number };
    products.push(...list);
    if (products.length >= total || list.length === 0) break;
  }
  const listPaths = new Set<string>();
  const listTotal = products.length;
  for (let page = 1; page <= Math.ceil(listTotal / 20); page += 1) listPaths.add(`/api/v2/site/products?page=${page}&page_size=20`);
  for (const sort of ['price', '-price', 'name', '-created_at']) {
    for (let page = 1; page <= 3; page += 1) listPaths.add(`/api/v2/site/products?page=${page}&page_size=20&sort=${sort}`);
  }
  for (const p of products) {
    listPaths.add(`/api/v2/site/products?first_product_group_id=${p.first_product_group_id}`);
    if (p.second_product_group_id !== null) listPaths.add(`/api/v2/site/products?second_product_group_id=${p.second_product_group_id}`);
    if (p.product_group_id !== null) listPaths.add(`/api/v2/site/products?product_group_id=${p.product_group_id}&page=1&page_size=20`);
  }
  const lists: BenchRequest[] = [];
  for (const path of listPaths) {
    await get(path);
    lists.push({ method: 'GET', path });
  }
  const details: BenchRequest[] = [];
  for (const p of products) {
    const path = `/api/v2/site/products/${p.id}`;
    await get(path);
    details.push({ method: 'GET', path });
  }

  // Quotes: every product × selections of period, disk, bandwidth, IPs and quantity (cpu, memory, area and os at their defaults).
  const periods = ['monthly', 'quarterly', 'annually'];
  const next = random(35);
  const quotes: BenchRequest[] = [];
  for (const p of products) {
    for (let s = 0; s < 4; s += 1) {
      const selection = {
        billing_period: periods[Math.floor(next() * periods.length)],
        config: { system_disk_size: 20 + 20 * Math.floor(next() * 20), bw: 1 + Math.floor(next() * 100), ip_num: 1 + Math.floor(next() * 8) },
        quantity: 1 + Math.floor(next() * 3),
      };
      const request: BenchRequest = { method: 'POST', path: `/api/v2/site/products/${p.id}/quote`, body: JSON.stringify(selection) };
      const answer = await call(`${api}${request.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request.body ?? null });
      if (answer.status !== 200) continue;
      keep(request, answer);
      quotes.push(request);
    }
  }
  if (quotes.length < 50) throw new Error(`only ${quotes.length} quote selections were answered 200`);

  const bench = products.find((p) => p.name === BENCH_PRODUCT);
  if (!bench) throw new Error(`bench product ${BENCH_PRODUCT} not seeded`);
  const [list, detail, quote, home, menus, config] = await Promise.all([
    must(`${api}/api/v2/site/products?${CATALOGUE_LIST_QUERY}`),
    must(`${api}/api/v2/site/products/${bench.id}`),
    must(`${api}/api/v2/site/products/${bench.id}/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(QUOTE_SELECTION) }),
    must(`${api}/api/v2/site/home`),
    must(`${api}/api/v2/site/product-menus`),
    must(`${api}/api/v2/site/config`),
  ]);
  const fixturesPath = join(mkdtempSync(join(tmpdir(), 'bench-catalogue-')), 'fixtures.json');
  writeFileSync(fixturesPath, JSON.stringify(fixtures));
  return {
    origin: STOREFRONT_ORIGIN,
    lists: mix(lists, 1),
    details: mix(details, 2),
    quotes: mix(quotes, 3),
    detailsThroughChain: mix(details, 4, 1),
    sizes: [
      { path: '/api/v2/site/home', bytes: home.bytes },
      { path: '/api/v2/site/product-menus', bytes: menus.bytes },
      { path: '/api/v2/site/config', bytes: config.bytes },
      { path: `/api/v2/site/products?${CATALOGUE_LIST_QUERY}`, bytes: list.bytes },
      { path: `/api/v2/site/products/${bench.id}`, bytes: detail.bytes },
      { path: `/api/v2/site/products/${bench.id}/quote`, bytes: quote.bytes },
    ],
    fixturesPath,
  };
}
