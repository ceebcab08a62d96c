import { systemAudit, userAudit } from '../../domain/billing/audit.js';
import { createPurchaseInvoice } from '../../domain/billing/invoices/create-purchase-invoice.js';
import { payInvoiceByBalance } from '../../domain/billing/payments/pay-invoice-by-balance.js';
import { adjustBalance } from '../../domain/billing/recharge/adjust-balance.js';
import type { DomainDeps } from '../../domain/deps.js';
import { sqlOne } from '../../db/sql.js';
import { money } from '../../lib/money.js';
import { DEMO_CLIENT } from './demo.js';
import { DEMO_SUPPLIER_CODE } from './supplier.js';

/** The trace id of the demo purchases below: finds them again on the next start. */
const TRACE = 'seed-economics';

/**
 * Margins on the demo services (docs/economics.md): the demo client buys two products of the
 * sandbox supplier and pays from the balance, through the real flow, so the worker provisions
 * them, pays the upstream sandbox and records what each cost (`upstream_costs`). Older demo
 * services (seeded straight into the database, with no upstream payment) keep their cost
 * unknown or nothing. Idempotent: skipped once its invoices exist.
 */
export async function seedDemoEconomics(deps: DomainDeps): Promise<string[]> {
  const user = await deps.db.models.User.findOne({ where: { email: DEMO_CLIENT.email } });
  const supplier = await deps.db.models.Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
  if (!user || !supplier) return [];
  if (await deps.db.models.Invoice.findOne({ where: { user_id: user.id, trace_id: TRACE } })) return [];
  const created: string[] = [];
  for (const offset of [0, 1]) {
    const product = await sqlOne<{ id: number; pricing: Record<string, string> }>(
      deps,
      `SELECT p.id, p.pricing FROM products p JOIN product_upstream_bindings b ON b.product_id = p.id
        WHERE b.supplier_id = $1 AND p.status = 'active' AND p.deleted_at IS NULL AND p.product_type = 'cloud_server'
        ORDER BY p.id OFFSET $2 LIMIT 1`,
      [supplier.id, offset],
    );
    if (!product) break;
    const period = 'monthly' in product.pricing ? 'monthly' : (Object.keys(product.pricing)[0] ?? 'monthly');
    const { invoice } = await createPurchaseInvoice(deps, { userId: user.id, productId: product.id, billingPeriod: period, config: {}, quantity: 1 }, userAudit(user.id, TRACE));
    await adjustBalance(deps, { userId: user.id, amount: money(invoice.amount), remark: '演示充值（毛利演示）' }, systemAudit(TRACE));
    await payInvoiceByBalance(deps, { userId: user.id, invoiceId: invoice.id }, userAudit(user.id, TRACE));
    created.push(`economics:purchase:${product.id}`);
  }
  return created;
}
