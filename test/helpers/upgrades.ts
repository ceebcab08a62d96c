import { expect } from 'vitest';
import type { ConfigOptionItem } from '../../lib/catalogue-contract.js';
import { formatMoney, money } from '../../lib/money.js';
import type { TestClient } from './billing.js';
import { createService, serviceOrderReaches, type ServicesPlatform } from './services.js';

/**
 * The imported product 101 at 20 % markup: 59 × 1.2 = 70.80 base, one IP included by default
 * (15 × 1.2 = 18.00), so the default configuration costs 88.80 a month; CPU 2 cores +24.00,
 * 4 cores +72.00.
 */
export const DEFAULT_PRICE = '88.80';

export type UpgradeQuote = Record<string, string> & { period: { days_left: number; days_in_period: number } };

/** The exact prorated difference rounded once, half up, from the answered days. */
export function expectedDifference(perPeriod: string, daysLeft: number, daysInPeriod: number): string {
  return formatMoney(money(perPeriod).times(daysLeft).dividedBy(daysInPeriod));
}

/** The config options of the platform's imported product 101. */
export async function productOptions(platform: ServicesPlatform): Promise<ConfigOptionItem[]> {
  const product = await platform.deps.db.models.Product.findByPk(platform.productId);
  return (product?.config_options ?? []) as unknown as ConfigOptionItem[];
}

/**
 * Calls the upgrade tests share (the client's upgrade route, the upgrade workflow): a choice of
 * the product's options, a service with a configuration, a quoted upgrade and its invoice, a
 * balance payment, the order once it reached a status. `session` answers the file's platform,
 * client and product options once its `beforeAll` has made them.
 */
export function upgradeCalls(session: () => { platform: ServicesPlatform; client: TestClient; options: ConfigOptionItem[] }) {
  const base = '/api/v2/client/services';

  /** The sub-option of an option of the imported product 101 (index 0 = its default). */
  function sub(field: string, index: number) {
    const option = session().options.find((o) => o.field === field);
    const found = option?.sub[index];
    if (!option || !found) throw new Error(`product has no ${field}[${index}]`);
    return { option, sub: found, choice: { value: found.id, label: `${option.name}：${found.label}` } };
  }

  async function serviceWith(cpuIndex: number, price: string, extra: { hostId?: number; userId?: number; status?: 'active' | 'suspended'; billingPeriod?: string } = {}) {
    const { platform, client } = session();
    return createService(platform, {
      userId: extra.userId ?? client.id,
      productId: platform.productId,
      price,
      config: { cpu: sub('cpu', cpuIndex).choice },
      ...(extra.hostId === undefined ? {} : { hostId: extra.hostId }),
      ...(extra.status ? { status: extra.status } : {}),
      ...(extra.billingPeriod ? { billingPeriod: extra.billingPeriod } : {}),
    });
  }

  /** The quote, then the invoice (same pricing function, same day). */
  async function createUpgrade(serviceId: number, config: Record<string, number>) {
    const { platform, client } = session();
    const quoted = await platform.api.post(`${base}/${serviceId}/upgrade/quote`, { token: client.token, body: { config } });
    expect(quoted.body.code, quoted.body.message).toBe(0);
    const res = await platform.api.post(`${base}/${serviceId}/upgrade`, { token: client.token, body: { config } });
    expect(res.body.code, res.body.message).toBe(0);
    return { invoice: res.body.data as { id: number; invoice_no: string; amount: string; status: string; type: string }, quote: quoted.body.data as UpgradeQuote };
  }

  async function payByBalance(invoiceId: number) {
    const { platform, client } = session();
    const res = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
    expect(res.body.code, res.body.message).toBe(0);
  }

  const orderReaches = (invoiceId: number, statuses: string[]) => serviceOrderReaches(session().platform, invoiceId, statuses);

  async function serviceRow(id: number) {
    const row = await session().platform.deps.db.models.Service.findByPk(id);
    if (!row) throw new Error('service gone');
    return row;
  }

  async function creditEntries(invoiceId: number) {
    return session().platform.deps.db.models.AccountTransaction.findAll({ where: { invoice_id: invoiceId, type: 'upgrade_credit' } });
  }

  return { sub, serviceWith, createUpgrade, payByBalance, orderReaches, serviceRow, creditEntries };
}
