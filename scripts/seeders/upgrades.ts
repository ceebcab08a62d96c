import { money } from '../../lib/money.js';
import { systemAudit } from '../../domain/billing/audit.js';
import { insertInvoice } from '../../domain/billing/invoices/insert-invoice.js';
import { adjustBalance } from '../../domain/billing/recharge/adjust-balance.js';
import { parseConfigOptions } from '../../domain/catalogue/config-options.js';
import { priceSelection } from '../../domain/catalogue/pricing.js';
import type { DomainDeps } from '../../domain/deps.js';
import { inTransaction } from '../../db/sql.js';
import { DEMO_CLIENT } from './demo.js';
import { DEMO_SUPPLIER_CODE } from './supplier.js';

/** The sandbox host the demo service runs on: the first host of the sandbox account (product 101, active). */
const DEMO_HOST_ID = 5001;
const DEMO_HOSTNAME = 'upgrade-demo.example.net';

/**
 * Dev: a running service of the demo client on the imported sandbox product 101 (1 core, 1 GB,
 * monthly, due in 20 days, locked at its catalogue price), bound to sandbox host 5001, and 500.00
 * on the demo client's balance, so `GET /api/v2/client/services/{id}/upgrade` lists its upgrade
 * options and an upgrade can be quoted, paid and carried out upstream in `npm run dev`.
 * Idempotent: nothing is written when the service exists (found by its hostname).
 */
export async function seedDemoUpgradableService(deps: DomainDeps): Promise<string[]> {
  const { User, Supplier, Service, ServiceUpstreamBinding, ProductUpstreamBinding, Product, Order } = deps.db.models;
  const user = await User.findOne({ where: { email: DEMO_CLIENT.email } });
  const supplier = await Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
  if (!user || !supplier) return [];
  if (await Service.findOne({ where: { user_id: user.id, hostname: DEMO_HOSTNAME } })) return [];
  const binding = await ProductUpstreamBinding.findOne({ where: { supplier_id: supplier.id, upstream_product_id: '101' } });
  const product = binding ? await Product.findByPk(binding.product_id) : null;
  if (!binding || !product) return [];
  const options = parseConfigOptions(product.config_options);
  // Every option at its default: the first choice, the minimum quantity.
  const priced = priceSelection({ name: product.name, pricing: product.pricing, config_options: options }, { billingPeriod: 'monthly', config: {}, quantity: 1 });
  const { invoice, order } = await inTransaction(deps, (tx) =>
    insertInvoice(
      deps,
      {
        userId: user.id,
        type: 'purchase',
        status: 'paid',
        subject: `${product.name}（演示）`,
        amount: '0.00',
        paymentChannel: 'free',
        settled: true,
        payload: { product_id: product.id, quantity: 1, billing_period: 'monthly', demo: true },
        items: [{ key: 'base', description: '演示服务（可升降级配置）', unitAmount: '0.00', quantity: 1, amount: '0.00' }],
        order: { productId: product.id, billingPeriod: 'monthly', quantity: 1, config: priced.config },
        audit: systemAudit('demo-upgrade-service'),
      },
      tx,
    ),
  );
  await Order.update({ status: 'completed', paid_at: new Date(), completed_at: new Date() }, { where: { id: order?.id ?? 0 } });
  const service = await Service.create({
    user_id: user.id,
    product_id: product.id,
    order_id: order?.id ?? 0,
    invoice_id: invoice.id,
    status: 'active',
    product_type: product.product_type,
    billing_period: 'monthly',
    config: priced.config,
    price: priced.total_amount,
    next_due_at: new Date(Date.now() + 20 * 86_400_000),
    product_name: product.display_name || product.name,
    console_template: 'compute',
    provider_key: 'upstream_finance_api',
    plugin_key: 'upstream_finance',
    supplier_id: supplier.id,
    hostname: DEMO_HOSTNAME,
    password_sealed: '',
    ip: '203.0.113.3',
    username: 'root',
    port: 22,
    os: 'CentOS 7.9 64位',
    activated_at: new Date(),
  });
  await ServiceUpstreamBinding.create({
    service_id: service.id,
    product_id: product.id,
    supplier_id: supplier.id,
    plugin_id: binding.plugin_id,
    provider_key: 'upstream_finance_api',
    upstream_product_id: '101',
    upstream_host_id: DEMO_HOST_ID,
    bound_at: new Date(),
  });
  await adjustBalance(deps, { userId: user.id, amount: money('500.00'), remark: '演示：升降级配置用余额' }, systemAudit('demo-upgrade-service'));
  return [`service:${service.id}（可升降级，上游主机 ${DEMO_HOST_ID}）`, 'balance:500.00'];
}
