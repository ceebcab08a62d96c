import { expect } from 'vitest';
import { systemAudit } from '../../domain/billing/audit.js';
import { insertInvoice } from '../../domain/billing/invoices/insert-invoice.js';
import { inTransaction } from '../../db/sql.js';
import { updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startBillingPlatform, type BillingPlatform } from './billing.js';
import type { TestPlatform } from './platform.js';
import { createCategory, startUpstreamForPlatform, type UpstreamSandbox } from './upstream-supplier.js';
import { eventually } from './wait.js';

export type ServicesPlatform = BillingPlatform & {
  sandbox: UpstreamSandbox;
  upstreamPluginId: number;
  supplierId: number;
  /** Product 101 of the sandbox, imported with a 20 % markup. */
  productId: number;
};

/** Plugin request timeout in the tests: a hanging upstream answer is given up quickly. */
export const TEST_UPSTREAM_TIMEOUT_MS = 1500;

/**
 * The money platform (workers, QR gateway) plus the upstream finance sandbox, its plugin, a
 * supplier against it and the sandbox's product 101 imported through the admin API with a
 * `percent 20` price rule (workers as `startBillingPlatform`). The sandbox account holds 150 more generated hosts (ids from 5004; 20 of them active hosts of product 101).
 */
export async function startServicesPlatform(env: Record<string, string> = {}, options: { worker?: boolean } = {}): Promise<ServicesPlatform> {
  const platform = await startBillingPlatform(env, options);
  const { sandbox, pluginId } = await startUpstreamForPlatform(platform);
  const plugin = await platform.deps.db.models.Plugin.findByPk(pluginId);
  await updatePluginConfig(platform.deps, pluginId, { ...plugin?.config, timeout_ms: TEST_UPSTREAM_TIMEOUT_MS });
  sandbox.control.seedHosts(150);
  const token = await platform.rootToken();
  const supplier = await platform.api.post('/api/v2/admin/suppliers', {
    token,
    body: {
      code: 'hk-cloud',
      name: '香港云',
      interface_type: 'upstream_finance_api',
      base_url: sandbox.baseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
    },
  });
  expect(supplier.body.code, supplier.body.message).toBe(0);
  const supplierId = supplier.body.data.id as number;
  const { category } = await createCategory(platform, 'cloud_server');
  const pulled = await platform.api.post(`/api/v2/admin/suppliers/${supplierId}/product-pulls`, {
    token,
    body: { upstream_product_ids: [101], product_group_id: category.id, price_rule: { type: 'percent', value: '20' }, status: 'active' },
  });
  expect(pulled.body.code, pulled.body.message).toBe(0);
  const productId = pulled.body.data.imported[0].product_id as number;
  const close = platform.close.bind(platform);
  return Object.assign(platform, {
    sandbox,
    upstreamPluginId: pluginId,
    supplierId,
    productId,
    async close() {
      await close();
      await sandbox.stop();
    },
  });
}

const usedHosts = new WeakMap<object, Set<number>>();

/** An active sandbox host of the given upstream product that no other service of this platform uses. */
export function takeHost(platform: ServicesPlatform, upstreamProductId = 101): number {
  const used = usedHosts.get(platform) ?? new Set<number>();
  usedHosts.set(platform, used);
  for (let id = 5001; id < 5200; id += 1) {
    if (used.has(id)) continue;
    const host = platform.sandbox.control.host(id);
    if (host && host.status === 'Active' && host.productId === upstreamProductId) {
      used.add(id);
      return id;
    }
  }
  throw new Error(`no free active sandbox host of product ${upstreamProductId}`);
}

export type ServiceSeed = {
  userId: number;
  productId: number;
  status?: 'pending' | 'provisioning' | 'active' | 'suspended' | 'terminated' | 'cancelled' | 'failed';
  productType?: string;
  billingPeriod?: string;
  price?: string;
  nextDueAt?: Date | null;
  /** Bind to this sandbox host through the platform's supplier; no binding when absent. */
  hostId?: number;
  password?: string;
  config?: Record<string, { value: number; label: string }>;
  productName?: string;
};

/**
 * A service made directly in the database, as provisioning leaves it (the provisioning
 * workflow is not involved): a settled free purchase invoice with its order, the service row
 * and, with `hostId`, its upstream binding. No fulfilment is dispatched for it.
 */
export async function createService(platform: ServicesPlatform, seed: ServiceSeed): Promise<number> {
  const { deps } = platform;
  const m = deps.db.models;
  const { invoice, order } = await inTransaction(deps, (tx) =>
    insertInvoice(
      deps,
      {
        userId: seed.userId,
        type: 'purchase',
        status: 'paid',
        subject: '测试服务',
        amount: '0.00',
        paymentChannel: 'free',
        settled: true,
        payload: { product_id: seed.productId, quantity: 1, billing_period: seed.billingPeriod ?? 'monthly' },
        items: [{ key: 'base', description: '测试服务', unitAmount: '0.00', quantity: 1, amount: '0.00' }],
        order: { productId: seed.productId, billingPeriod: seed.billingPeriod ?? 'monthly', quantity: 1, config: {} },
        audit: systemAudit('test-service'),
      },
      tx,
    ),
  );
  await m.Order.update({ status: 'completed', paid_at: new Date(), completed_at: new Date() }, { where: { id: order?.id ?? 0 } });
  const bound = seed.hostId !== undefined;
  const service = await m.Service.create({
    user_id: seed.userId,
    product_id: seed.productId,
    order_id: order?.id ?? 0,
    invoice_id: invoice.id,
    status: seed.status ?? 'active',
    product_type: (seed.productType ?? 'cloud_server') as 'cloud_server',
    billing_period: seed.billingPeriod ?? 'monthly',
    config: seed.config ?? {},
    price: seed.price ?? '70.80',
    next_due_at: seed.nextDueAt === undefined ? new Date(Date.now() + 20 * 86_400_000) : seed.nextDueAt,
    product_name: seed.productName ?? '香港云服务器 标准型',
    console_template: 'compute',
    provider_key: bound ? 'upstream_finance_api' : '',
    plugin_key: bound ? 'upstream_finance' : '',
    supplier_id: bound ? platform.supplierId : null,
    hostname: bound ? `srv${seed.hostId}.example.net` : 'local.example.net',
    password_sealed: seed.password ? deps.secretBox.seal(seed.password) : '',
    ip: bound ? '203.0.113.10' : '',
    username: 'root',
    port: 22,
    os: 'CentOS 7.9 64位',
    activated_at: new Date(),
  });
  if (bound) {
    await m.ServiceUpstreamBinding.create({
      service_id: service.id,
      product_id: seed.productId,
      supplier_id: platform.supplierId,
      plugin_id: platform.upstreamPluginId,
      provider_key: 'upstream_finance_api',
      upstream_product_id: '101',
      upstream_host_id: seed.hostId ?? null,
      bound_at: new Date(),
    });
  }
  return service.id;
}

/** The service order (renewal, traffic package, upgrade) of an invoice once it reached one of the statuses. */
export async function serviceOrderReaches(platform: TestPlatform, invoiceId: number, statuses: string[], attempts = 400) {
  return eventually(async () => {
    const row = await platform.deps.db.models.ServiceOrder.findOne({ where: { invoice_id: invoiceId } });
    return row && statuses.includes(row.status) ? row : null;
  }, attempts);
}
