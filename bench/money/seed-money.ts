import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDatabase } from '../../db/sequelize.js';
import { adminAudit, userAudit } from '../../domain/billing/audit.js';
import { createPurchaseInvoice } from '../../domain/billing/invoices/create-purchase-invoice.js';
import { createCoupon } from '../../domain/marketing/coupons.js';
import { startQrPayment } from '../../domain/billing/payments/start-qr-payment.js';
import { adjustBalance } from '../../domain/billing/recharge/adjust-balance.js';
import { issueSession } from '../../domain/auth/sessions.js';
import type { DomainDeps } from '../../domain/deps.js';
import { createPluginBinding } from '../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { money } from '../../lib/money.js';
import { createTemporalGateway } from '../../lib/temporal.js';
import { startQrpaySandbox } from '../../sandbox/qrpay/server.js';

export type MoneySeed = {
  /** Invoices the API pays from the balance, with the owner's token. */
  balanceOurs: Array<{ invoiceId: number; token: string }>;
  /** Invoices the bare baseline pays. */
  balanceBare: number[];
  /** Genuinely signed gateway notifications of pending payments (for the API). */
  notifyOurs: Array<Record<string, string>>;
  /** Notification fields of the baseline's pending payments (it checks no signature). */
  notifyBare: Array<Record<string, string>>;
  /** Invoice creation with a coupon against without: a product, the client tokens, and a coupon of unlimited uses. */
  invoices: { productId: number; tokens: string[]; couponCode: string; count: number };
  stop(): Promise<void>;
};

const APP_ID = 'bench-qrpay-app';

async function inParallel<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await work(i);
    }),
  );
  return results;
}

/**
 * Everything the money benchmarks consume, written through the same domain functions the API
 * uses: users with a balance and client tokens, unpaid purchase invoices (one per balance
 * payment), and pending QR payments at a sandbox gateway whose signed notifications were
 * captured instead of delivered (one per notification).
 */
export async function seedMoney(options: { databaseUrl: string; temporalAddress: string; secretKey: string; payments: number; notifications: number; log: (m: string) => void }): Promise<MoneySeed> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: options.databaseUrl, TEMPORAL_ADDRESS: options.temporalAddress, APP_SECRET_KEY: options.secretKey });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 8 });
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
  const deps: DomainDeps = { config, db, logger: createLogger('warn', 'bench-seed'), secretBox: createSecretBox(config.secretKey), temporal };
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sandbox = await startQrpaySandbox({ merchantPublicKeyPem: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(), appId: APP_ID, notifyRetryDelaysMs: [] });
  const captured = new Map<string, Record<string, string>>();
  const capture = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      if (fields.out_trade_no) captured.set(fields.out_trade_no, fields);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('success');
    });
  });
  await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
  const stop = async () => {
    capture.closeAllConnections();
    await new Promise<void>((resolve) => capture.close(() => resolve()));
    await sandbox.stop();
    await temporal.close();
    await db.close();
  };
  try {
    const { ProductMenu, Product, User } = db.models;
    const menu = await ProductMenu.create({ code: `bench_${randomBytes(4).toString('hex')}`, name: '压测商品', product_type: 'cloud_server' });
    const product = await Product.create({
      first_product_group_id: menu.id,
      second_product_group_id: null,
      product_group_id: null,
      name: '压测云服务器',
      product_type: 'cloud_server',
      service_type_code: 'cloud_server',
      pricing: { monthly: '12.30' },
      config_options: [],
    });
    const userCount = 100;
    const users = await User.bulkCreate(
      Array.from({ length: userCount }, (_, i) => ({ email: `money-bench-${i}@example.test`, phone: null, nickname: `付款用户 ${i}`, password_hash: 'bench-not-a-hash', status: 'active' as const })),
    );
    const admin = adminAudit({ id: 0, username: 'bench' }, 'bench-seed');
    const tokens = await inParallel(userCount, 8, async (i) => {
      const user = users[i] as (typeof users)[number];
      await adjustBalance(deps, { userId: user.id, amount: money('100000'), remark: '压测充值' }, admin);
      return (await issueSession(deps, 'client', user.id, { ip: '127.0.0.1', userAgent: 'bench' })).access_token;
    });
    const invoiceFor = async (i: number) => {
      const user = users[i % userCount] as (typeof users)[number];
      const { invoice } = await createPurchaseInvoice(deps, { userId: user.id, productId: product.id, billingPeriod: 'monthly', config: {}, quantity: 1 }, userAudit(user.id, 'bench-seed'));
      return { invoice, userIndex: i % userCount };
    };
    options.log(`money seed: ${userCount} users, ${options.payments * 2} invoices for balance payments…`);
    const balance = await inParallel(options.payments * 2, 8, invoiceFor);

    const plugin = await installPlugin(deps, 'payment', 'qrpay');
    await updatePluginConfig(deps, plugin.id, {
      app_id: APP_ID,
      gateway_url: sandbox.url,
      merchant_private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      gateway_public_key: sandbox.gatewayPublicKeyPem,
    });
    await enablePlugin(deps, plugin.id);
    await createPluginBinding(deps, { plugin_id: plugin.id, binding_type: 'default', scene: 'default' });
    config.publicBaseUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;

    options.log(`money seed: ${options.notifications * 2} pending QR payments at the sandbox gateway…`);
    const qr = await inParallel(options.notifications * 2, 8, async (i) => {
      const { invoice, userIndex } = await invoiceFor(i);
      const user = users[userIndex] as (typeof users)[number];
      const started = await startQrPayment(deps, { userId: user.id, invoiceId: invoice.id, useBalance: false }, userAudit(user.id, 'bench-seed'));
      return started.payment;
    });
    const ours = qr.slice(0, options.notifications);
    // In slices: 1,500 notifications posted at once to the capture server time out on a loaded
    // machine (the sandbox does not retry here), and a lost one would stop the seed.
    for (let i = 0; i < ours.length; i += 100) {
      for (const payment of ours.slice(i, i + 100)) sandbox.control.pay(payment.payment_no);
      await sandbox.control.idle();
    }
    const notifyOurs = ours.map((p) => {
      const fields = captured.get(p.payment_no);
      if (!fields) throw new Error(`no notification captured for ${p.payment_no}`);
      return fields;
    });
    const notifyBare = qr.slice(options.notifications).map((p, i) => ({ out_trade_no: p.payment_no, trade_no: `BARE${Date.now()}${i}`, total_amount: p.amount, trade_status: 'TRADE_SUCCESS' }));
    const couponCode = `BENCH${randomBytes(4).toString('hex').toUpperCase()}`;
    await createCoupon(deps, {
      code: couponCode,
      name: '压测优惠券',
      kind: 'percent',
      value: '10',
      min_amount: '0',
      product_ids: [product.id],
      menu_ids: [],
      new_customers_only: false,
      scenes: ['purchase'],
      starts_at: null,
      ends_at: null,
      total_uses: null,
      per_user_limit: null,
      status: 'active',
      is_public: false,
      owner_user_id: null,
    });
    return {
      invoices: { productId: product.id, tokens, couponCode, count: options.payments },
      balanceOurs: balance.slice(0, options.payments).map(({ invoice, userIndex }) => ({ invoiceId: invoice.id, token: tokens[userIndex] as string })),
      balanceBare: balance.slice(options.payments).map(({ invoice }) => invoice.id),
      notifyOurs,
      notifyBare,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
