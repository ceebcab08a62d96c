import { systemAudit } from '../../domain/billing/audit.js';
import { insertInvoice } from '../../domain/billing/invoices/insert-invoice.js';
import type { DomainDeps } from '../../domain/deps.js';
import { addNatRule, listNatRules } from '../../domain/services/console/nat-rules.js';
import { createSecurityGroup } from '../../domain/services/console/security-groups.js';
import { linkSecurityGroup } from '../../domain/services/console/security-links.js';
import { invokeSupplierPlugin } from '../../domain/suppliers/supplier-plugin.js';
import { inTransaction } from '../../db/sql.js';
import { DEMO_CLIENT } from './demo.js';
import { DEMO_SUPPLIER_CODE } from './supplier.js';

/** The demo service's hostname: how a second start finds it. */
export const DEMO_CONSOLE_HOSTNAME = 'demo-console.example.net';
const DEMO_GROUP = 'Web 服务器';

/** The demo client's running service on an active sandbox host, made as provisioning leaves it (once). */
async function ensureDemoService(deps: DomainDeps, userId: number): Promise<{ id: number; created: boolean } | null> {
  const m = deps.db.models;
  const existing = await m.Service.findOne({ where: { user_id: userId, hostname: DEMO_CONSOLE_HOSTNAME } });
  if (existing) return { id: existing.id, created: false };
  const supplier = await m.Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
  if (!supplier || supplier.plugin_id === null) return null;
  const list = await invokeSupplierPlugin(deps, supplier, { action: 'upstream.host_list' });
  const hosts = (list.success ? list.data['hosts'] : []) as Array<{ id?: unknown; status?: unknown; product_id?: unknown }>;
  // An active cloud-server host no other service is bound to (the upgrades demo takes the first
  // host of product 101), of an upstream product the demo catalogue imported.
  const bound = new Set(
    (await m.ServiceUpstreamBinding.findAll({ where: { supplier_id: supplier.id }, attributes: ['upstream_host_id'] })).map((b) => Number(b.upstream_host_id)),
  );
  let binding = null;
  let host: { id?: unknown } | undefined;
  for (const upstreamProductId of ['101', '102']) {
    binding = await m.ProductUpstreamBinding.findOne({ where: { supplier_id: supplier.id, upstream_product_id: upstreamProductId } });
    host = binding ? hosts.find((h) => h.status === 'active' && String(h.product_id) === upstreamProductId && typeof h.id === 'number' && !bound.has(h.id)) : undefined;
    if (binding && host) break;
  }
  if (!binding || !host) return null;
  const { invoice, order } = await inTransaction(deps, (tx) =>
    insertInvoice(
      deps,
      {
        userId,
        type: 'purchase',
        status: 'paid',
        subject: '演示云服务器',
        amount: '0.00',
        paymentChannel: 'free',
        settled: true,
        payload: { product_id: binding.product_id, quantity: 1, billing_period: 'monthly' },
        items: [{ key: 'base', description: '演示云服务器', unitAmount: '0.00', quantity: 1, amount: '0.00' }],
        order: { productId: binding.product_id, billingPeriod: 'monthly', quantity: 1, config: {} },
        audit: systemAudit('demo-console'),
      },
      tx,
    ),
  );
  await m.Order.update({ status: 'completed', paid_at: new Date(), completed_at: new Date() }, { where: { id: order?.id ?? 0 } });
  const service = await m.Service.create({
    user_id: userId,
    product_id: binding.product_id,
    order_id: order?.id ?? 0,
    invoice_id: invoice.id,
    status: 'active',
    product_type: 'cloud_server',
    billing_period: 'monthly',
    config: {},
    price: '0.00',
    next_due_at: new Date(Date.now() + 30 * 86_400_000),
    product_name: '演示云服务器（控制台）',
    console_template: 'compute',
    provider_key: 'upstream_finance_api',
    plugin_key: 'upstream_finance',
    supplier_id: supplier.id,
    hostname: DEMO_CONSOLE_HOSTNAME,
    password_sealed: '',
    ip: '',
    username: 'root',
    port: 22,
    os: '',
    activated_at: new Date(Date.now() - 6 * 3_600_000),
  });
  await m.ServiceUpstreamBinding.create({
    service_id: service.id,
    product_id: binding.product_id,
    supplier_id: supplier.id,
    plugin_id: supplier.plugin_id,
    provider_key: 'upstream_finance_api',
    upstream_product_id: binding.upstream_product_id,
    upstream_host_id: host.id as number,
    bound_at: new Date(),
  });
  return { id: service.id, created: true };
}

/**
 * Dev: the demo client's console with something in it: a running cloud server on a sandbox host
 * (activated six hours ago, so monitoring shows points), two NAT rules and a linked security
 * group. The sandbox keeps its module data in memory, so every start puts the NAT rules and the
 * group's rules back on the host (the stale push records of the previous run are dropped first).
 */
export async function seedDemoConsole(deps: DomainDeps): Promise<string[]> {
  const created: string[] = [];
  const m = deps.db.models;
  const user = await m.User.findOne({ where: { email: DEMO_CLIENT.email } });
  if (!user) return created;
  const service = await ensureDemoService(deps, user.id);
  if (!service) return created;
  if (service.created) created.push(`service:${DEMO_CONSOLE_HOSTNAME}`);
  const input = { serviceId: service.id, userId: user.id };
  if ((await listNatRules(deps, { ...input, page: 1, page_size: 1 })).total === 0) {
    await addNatRule(deps, { ...input, protocol: 'tcp', internalPort: 22, externalPort: 22022 });
    await addNatRule(deps, { ...input, protocol: 'tcp', internalPort: 80 });
    created.push('nat-rules:2');
  }
  let group = await m.SecurityGroup.findOne({ where: { user_id: user.id, name: DEMO_GROUP } });
  if (!group) {
    const made = await createSecurityGroup(deps, {
      userId: user.id,
      name: DEMO_GROUP,
      description: '开放 SSH 与网站端口',
      rules: [
        { direction: 'in', protocol: 'tcp', port_range: '22', cidr: '0.0.0.0/0', action: 'allow', description: 'SSH' },
        { direction: 'in', protocol: 'tcp', port_range: '80-443', cidr: '0.0.0.0/0', action: 'allow', description: 'HTTP/HTTPS' },
        { direction: 'in', protocol: 'tcp', port_range: '3306', cidr: '0.0.0.0/0', action: 'deny', description: '禁止外部访问数据库' },
      ],
    });
    group = await m.SecurityGroup.findByPk(made.id, { rejectOnEmpty: true });
    created.push(`security-group:${DEMO_GROUP}`);
  }
  await m.ServiceSecurityRulePush.destroy({ where: { service_id: service.id, group_id: group.id } });
  await m.ServiceSecurityGroup.destroy({ where: { service_id: service.id, group_id: group.id } });
  await linkSecurityGroup(deps, { ...input, groupId: group.id });
  return created;
}
