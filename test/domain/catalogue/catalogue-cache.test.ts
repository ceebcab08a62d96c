import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import type { AppDeps } from '../../../api/context.js';
import { type ServedApp, serveApp } from '../../../api/server.js';
import { CATALOGUE_CHANNEL, createCatalogueCache } from '../../../domain/catalogue/catalogue-cache.js';
import { catalogueAdmin } from '../../helpers/catalogue.js';
import { type ApiClient, createApiClient, expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let second: { deps: AppDeps; api: ApiClient; served: ServedApp };
let admin: ReturnType<typeof catalogueAdmin>;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = catalogueAdmin(platform, () => platform.rootToken());
  const deps: AppDeps = {
    ...platform.deps,
    catalogueCache: createCatalogueCache({ databaseUrl: platform.deps.config.databaseUrl, ttlMs: 3_600_000, logger: platform.deps.logger }),
  };
  const served = await serveApp(createApp(deps), { hostname: '127.0.0.1', port: 0 });
  second = { deps, served, api: createApiClient(`http://127.0.0.1:${served.port}`) };
});
afterAll(async () => {
  await second?.served.stop();
  await second?.deps.catalogueCache?.close();
  await platform?.close();
});

/** Reads a detail on the second instance until its cache holds it (listener up, entry stored). */
async function warm(productId: number): Promise<void> {
  await eventually(async () => {
    const res = await second.api.get(`/api/v2/site/products/${productId}`);
    expect(res.body.code).toBe(0);
    return second.deps.catalogueCache?.get(`product:${productId}`) ?? null;
  });
}

async function product(name: string) {
  const menu = await admin.menu({ name: `菜单 ${name}`, product_type: 'cdn' });
  return admin.product({ name, first_product_group_id: menu.id, pricing: { monthly: '10.00' } });
}

describe('catalogue cache across API instances', () => {
  it('serves repeated reads from the cache, and a write on one instance reaches the cache of another', async () => {
    const p = await product('跨实例');
    await warm(p.id);
    // Changed behind the API's back: the warm cache keeps answering the old name.
    await platform.deps.db.sequelize.query(`UPDATE products SET name = '绕过' WHERE id = ${p.id}`);
    expect((await second.api.get(`/api/v2/site/products/${p.id}`)).body.data.name).toBe('跨实例');

    await admin.call('put', `/api/v2/admin/products/${p.id}`, { pricing: { monthly: '12.30' } });
    await eventually(async () => ((await second.api.get(`/api/v2/site/products/${p.id}`)).body.data.pricing.monthly === '12.30' ? true : null));
    const quote = await second.api.post(`/api/v2/site/products/${p.id}/quote`, { body: { billing_period: 'monthly' } });
    expect(quote.body.data.total_amount).toBe('12.30');
  });

  it('drops cached absences too: a product listed on one instance appears on the other', async () => {
    const p = await product('先下架');
    await admin.call('put', `/api/v2/admin/products/${p.id}`, { status: 'hidden' });
    await eventually(async () => {
      expectError(await second.api.get(`/api/v2/site/products/${p.id}`), 40400, 404);
      return second.deps.catalogueCache?.get(`product:${p.id}`) ? true : null;
    });
    await admin.call('put', `/api/v2/admin/products/${p.id}`, { status: 'active' });
    await eventually(async () => ((await second.api.get(`/api/v2/site/products/${p.id}`)).body.code === 0 ? true : null));
  });

  it('is bypassed while its listener is disconnected, and used again once it reconnects', async () => {
    const p = await product('断线');
    await warm(p.id);
    await platform.deps.db.sequelize.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN ${CATALOGUE_CHANNEL}%'`,
    );
    // Down: the warm entry is not served (get answers nothing) until the listener is back.
    await eventually(async () => {
      const cache = second.deps.catalogueCache;
      return cache && !cache.isListening() && cache.get(`product:${p.id}`) === undefined ? true : null;
    });
    // A change written without a notification meanwhile is seen once it reconnects: the cache starts empty.
    await platform.deps.db.sequelize.query(`UPDATE products SET name = '直改' WHERE id = ${p.id}`);
    await warm(p.id);
    expect((await second.api.get(`/api/v2/site/products/${p.id}`)).body.data.name).toBe('直改');
  });

  it('treats any notification on the channel as "invalidate everything"', async () => {
    const p = await product('任意通知');
    await warm(p.id);
    await platform.deps.db.sequelize.query(`SELECT pg_notify('${CATALOGUE_CHANNEL}', 'garbage')`);
    await eventually(async () => (second.deps.catalogueCache?.get(`product:${p.id}`) === undefined ? true : null));
  });

  it('keeps computed answers (quotes) in their own bounded space: many of them never push reads out', async () => {
    const p = await product('报价空间');
    await warm(p.id);
    const cache = second.deps.catalogueCache;
    if (!cache) throw new Error('the second instance has a cache');
    const ticket = cache.ticket();
    for (let i = 0; i < 2_001; i++) cache.setComputed(ticket, `quote:test:${i}`, i);
    expect(cache.getComputed('quote:test:0')).toBeUndefined();
    expect(cache.getComputed('quote:test:1')).toEqual({ value: 1 });
    expect(cache.getComputed('quote:test:2000')).toEqual({ value: 2000 });
    expect(cache.get(`product:${p.id}`)).toBeDefined();
    // An answer computed before a change is not stored after it.
    cache.invalidate();
    cache.setComputed(ticket, 'quote:test:stale', 1);
    expect(cache.getComputed('quote:test:stale')).toBeUndefined();
    expect(cache.getComputed('quote:test:1')).toBeUndefined();
  });
});
