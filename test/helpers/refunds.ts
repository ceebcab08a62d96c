import { invoicePaymentWorkflowId } from '../../workflows/invoice-payment/contract.js';
import { adjustBalance, type BillingPlatform, buyerPays, createProduct, purchase, registerClient, type TestClient } from './billing.js';

/**
 * Calls the refund tests share (the admin refund route, the refund workflow): a paid purchase and
 * an admin refund of it. `session` answers the file's platform and root token once its `beforeAll`
 * has made them.
 */
export function refundCalls(session: () => { platform: BillingPlatform; token: string }) {
  /** A purchase of `price`, paid with `balance` from the balance (mixed) and the rest by QR through the sandbox. */
  async function paidInvoice(price: string, balance: string | null) {
    const { platform } = session();
    const product = await createProduct(platform, price);
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    if (balance === price) {
      await adjustBalance(platform, client.id, balance);
      await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
    } else {
      if (balance) await adjustBalance(platform, client.id, balance);
      const started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token, body: { use_balance: balance !== null } });
      await buyerPays(started.body.data.qr_code_url);
      await platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no)).result();
    }
    return { client, invoice };
  }

  function refund(client: TestClient, invoiceId: number, body: Record<string, unknown>) {
    const { platform, token } = session();
    return platform.api.post(`/api/v2/admin/users/${client.id}/invoices/${invoiceId}/refunds`, { token, body });
  }

  return { paidInvoice, refund };
}
