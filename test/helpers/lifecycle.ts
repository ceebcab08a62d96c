import { randomBytes } from 'node:crypto';
import { systemAudit } from '../../domain/billing/audit.js';
import { insertInvoice } from '../../domain/billing/invoices/insert-invoice.js';
import { INVOICE_COLUMNS } from '../../db/models/billing.js';
import { inTransaction, sqlOne } from '../../db/sql.js';
import { createPluginBinding } from '../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { createSupplier } from '../../domain/suppliers/suppliers.js';
import type { ServiceStatus, SuspendReason } from '../../db/models/service.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { type MailSandbox, startMailSandbox } from '../../sandbox/mail/server.js';
import { type SmsSandbox, startSmsSandbox } from '../../sandbox/sms/server.js';
import { registerKnownSecret } from './known-secrets.js';
import { createProduct } from './billing.js';
import type { TestPlatform } from './platform.js';

const DAY_MS = 86_400_000;

export function daysFromNow(days: number): Date {
  return new Date(Date.now() + days * DAY_MS);
}

export type Notifier = { mail: MailSandbox; sms: SmsSandbox; stop(): Promise<void> };

/** The SMTP sink and the SMS gateway sandboxes, with the smtp and smsgate plugins configured against them as default bindings. */
export async function startNotifier(platform: TestPlatform): Promise<Notifier> {
  const c = SANDBOX_CREDENTIALS;
  registerKnownSecret(c.smtp.password);
  registerKnownSecret(c.sms.accessKeySecret);
  const mail = await startMailSandbox({ port: 0, smtpPort: 0, users: { [c.smtp.user]: c.smtp.password } });
  const sms = await startSmsSandbox({ port: 0, accessKeys: { [c.sms.accessKeyId]: c.sms.accessKeySecret }, signNames: [c.sms.signName] });
  const plugins = [
    {
      domain: 'mail' as const,
      slug: 'smtp',
      config: {
        accounts: JSON.stringify([{ name: '沙箱邮件', host: mail.smtpHost, port: mail.smtpPort, secure: false, user: c.smtp.user, password: c.smtp.password, from: 'noreply@example.com' }]),
        strategy: 'first_available',
      },
    },
    {
      domain: 'sms' as const,
      slug: 'smsgate',
      config: {
        access_key_id: c.sms.accessKeyId,
        access_key_secret: c.sms.accessKeySecret,
        base_url: sms.baseUrl,
        sign_name: c.sms.signName,
        templates: JSON.stringify({
          renewal_reminder: 'SMS_RENEWAL',
          invoice_unpaid: 'SMS_INVOICE_UNPAID',
          service_overdue: 'SMS_SERVICE_OVERDUE',
          service_suspended: 'SMS_SERVICE_SUSPENDED',
          service_terminated: 'SMS_SERVICE_TERMINATED',
          ticket_reply: 'SMS_TICKET_REPLY',
          ticket_close_reminder: 'SMS_TICKET_CLOSE_REMINDER',
          ticket_auto_closed: 'SMS_TICKET_AUTO_CLOSED',
          verify_code: 'SMS_VERIFY_CODE',
        }),
      },
    },
  ];
  for (const p of plugins) {
    const plugin = await installPlugin(platform.deps, p.domain, p.slug);
    await updatePluginConfig(platform.deps, plugin.id, p.config);
    await enablePlugin(platform.deps, plugin.id);
    await createPluginBinding(platform.deps, { plugin_id: plugin.id, binding_type: 'default', scene: 'default' });
  }
  return {
    mail,
    sms,
    async stop() {
      await mail.stop();
      await sms.stop();
    },
  };
}

/** A client user with an e-mail and (unless null) a phone number. */
export async function createUser(platform: TestPlatform, options: { phone?: string | null; email?: string | null } = {}) {
  const tag = randomBytes(4).toString('hex');
  const phone = options.phone === undefined ? `139${String(parseInt(tag, 16) % 100_000_000).padStart(8, '0')}` : options.phone;
  const email = options.email === undefined ? `owner-${tag}@example.com` : options.email;
  return platform.deps.db.models.User.create({ email, phone, nickname: '', password_hash: 'x', status: 'active' });
}

/** A supplier of the upstream finance plugin pointing at a sandbox (the plugin must be installed). */
export async function createTestSupplier(platform: TestPlatform, baseUrl: string, code: string) {
  return createSupplier(platform.deps, {
    code,
    name: `供应商 ${code}`,
    interface_type: 'upstream_finance_api',
    base_url: baseUrl,
    account: SANDBOX_CREDENTIALS.upstream.username,
    api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
  });
}

export type SeedServiceInput = {
  userId: number;
  status?: ServiceStatus;
  nextDueAt: Date | null;
  suspendedAt?: Date | null;
  suspendReason?: SuspendReason | null;
  autoRenew?: boolean;
  price?: string;
  productName?: string;
  /** Binds the service to this supplier's host. */
  upstream?: { supplierId: number; hostId: number };
};

/**
 * A service as provisioning leaves it, written directly: a free, paid and completed purchase
 * (so the books stay consistent), the service row, and optionally its upstream binding.
 */
export async function seedService(platform: TestPlatform, input: SeedServiceInput): Promise<number> {
  const deps = platform.deps;
  const product = await createProduct(platform, input.price ?? '30.00');
  return inTransaction(deps, async (tx) => {
    const { invoice, order } = await insertInvoice(
      deps,
      {
        userId: input.userId,
        type: 'purchase',
        status: 'paid',
        subject: '新购：入门型',
        amount: '0.00',
        paymentChannel: 'free',
        settled: true,
        items: [],
        order: { productId: product.id, billingPeriod: 'monthly', quantity: 1, config: {} },
        audit: systemAudit('test-seed'),
      },
      tx,
    );
    await sqlOne(deps, `UPDATE orders SET status = 'completed', paid_at = now(), completed_at = now() WHERE id = $1 RETURNING id`, [order?.id], tx);
    const service = await sqlOne<{ id: number }>(
      deps,
      `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, next_due_at,
          product_name, hostname, auto_renew, activated_at, suspended_at, suspend_reason)
       VALUES ($1, $2, $3, $4, 1, $5, 'cloud_server', 'monthly', $6, $7, $8, $9, $10, now(), $11, $12) RETURNING id`,
      [
        input.userId,
        product.id,
        order?.id,
        invoice.id,
        input.status ?? 'active',
        input.price ?? '30.00',
        input.nextDueAt,
        input.productName ?? '香港云服务器 入门型',
        `vm-${randomBytes(3).toString('hex')}.example.net`,
        input.autoRenew ?? false,
        input.suspendedAt ?? null,
        input.suspendReason ?? null,
      ],
      tx,
    );
    if (!service) throw new Error('service not seeded');
    if (input.upstream) {
      await sqlOne(
        deps,
        `UPDATE services SET supplier_id = $2, provider_key = 'upstream_finance_api', plugin_key = 'upstream_finance' WHERE id = $1 RETURNING id`,
        [service.id, input.upstream.supplierId],
        tx,
      );
      await sqlOne(
        deps,
        `INSERT INTO service_upstream_bindings (service_id, product_id, supplier_id, provider_key, upstream_product_id, upstream_host_id, bound_at)
         VALUES ($1, $2, $3, 'upstream_finance_api', '101', $4, now()) RETURNING service_id`,
        [service.id, product.id, input.upstream.supplierId, input.upstream.hostId],
        tx,
      );
    }
    return service.id;
  });
}

/** An unpaid renewal invoice of a service (with its renewal order), as the renewal work creates them. */
export async function seedRenewInvoice(platform: TestPlatform, input: { userId: number; serviceId: number; amount: string; status?: 'unpaid' | 'paid' }) {
  const deps = platform.deps;
  const service = await deps.db.models.Service.findByPk(input.serviceId);
  return inTransaction(deps, async (tx) => {
    const paid = input.status === 'paid';
    const { invoice, order } = await insertInvoice(
      deps,
      {
        userId: input.userId,
        type: 'renew',
        status: paid ? 'paid' : 'unpaid',
        subject: '续费：香港云服务器 入门型',
        amount: paid ? '0.00' : input.amount,
        ...(paid ? { paymentChannel: 'free' as const, settled: true } : {}),
        serviceId: input.serviceId,
        payload: { service_id: input.serviceId, billing_period: 'monthly', months: 1 },
        items: [{ key: 'renew', description: '续费 月付', unitAmount: paid ? '0.00' : input.amount, quantity: 1, amount: paid ? '0.00' : input.amount }],
        order: { productId: service?.product_id ?? null, serviceId: input.serviceId, billingPeriod: 'monthly', quantity: 1, config: {} },
        audit: systemAudit('test-seed'),
      },
      tx,
    );
    if (paid) {
      await sqlOne(deps, `UPDATE orders SET status = 'paid', paid_at = now() WHERE id = $1 RETURNING id`, [order?.id], tx);
      // Paid, not yet dispatched (its service order not made yet), as a paid renewal is until the relay dispatches it;
      // `settled` marks the invoice dispatched too, which only kinds settled in place are.
      const undispatched = await sqlOne<typeof invoice>(deps, `UPDATE invoices SET dispatched_at = NULL WHERE id = $1 RETURNING ${INVOICE_COLUMNS}`, [invoice.id], tx);
      return undispatched ?? invoice;
    }
    return invoice;
  });
}

/** A service's lifecycle and sync events, oldest first. */
export async function serviceEvents(platform: TestPlatform, serviceId: number) {
  return platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: serviceId }, order: [['id', 'ASC']] });
}
