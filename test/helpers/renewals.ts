import { expect } from 'vitest';
import { formatDateTime, parseDateTime } from '../../lib/time.js';
import type { TestClient } from './billing.js';
import { serviceOrderReaches, type ServicesPlatform } from './services.js';

/** A due date written as the API writes it. */
export const due = (text: string) => parseDateTime(text) as Date;

/**
 * Calls the renewal tests share (the client's renewal route, its workflow, the admin's service
 * orders): a renewal invoice, paid by balance, its order once it reached a status, a service's due
 * date. `session` answers the file's platform and client once its `beforeAll` has made them.
 */
export function renewalCalls(session: () => { platform: ServicesPlatform; client: TestClient }) {
  async function renew(serviceId: number, billingPeriod = 'monthly') {
    const { platform, client } = session();
    const res = await platform.api.post(`/api/v2/client/services/${serviceId}/renew`, { token: client.token, body: { billing_period: billingPeriod } });
    expect(res.body.code, res.body.message).toBe(0);
    return res.body.data as { id: number; invoice_no: string; amount: string; type: string; service_id: number };
  }

  async function payByBalance(invoiceId: number) {
    const { platform, client } = session();
    const res = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
    expect(res.body.code, res.body.message).toBe(0);
  }

  /** The order of an invoice once it reached one of the statuses. */
  const orderReaches = (invoiceId: number, statuses: string[], attempts = 400) => serviceOrderReaches(session().platform, invoiceId, statuses, attempts);

  async function dueOf(serviceId: number) {
    return formatDateTime((await session().platform.deps.db.models.Service.findByPk(serviceId))?.next_due_at ?? null);
  }

  return { renew, payByBalance, orderReaches, dueOf };
}
