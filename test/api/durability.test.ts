import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayDueIntents } from '../../domain/outbox/relay.js';
import { startApiProcess } from '../helpers/api-process.js';
import { createApiClient } from '../helpers/http.js';
import { adjustBalance, buyerPays, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform, type TestClient } from '../helpers/billing.js';
import { PROVISION_TEST_ENV, serviceReaches, setUpUpstreamProduct, type UpstreamCatalogue } from '../helpers/provisioning.js';
import { createService, type ServicesPlatform, takeHost } from '../helpers/services.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';

/**
 * What a commit promises survives the process that made it: the API killed (SIGKILL) right after
 * a payment commits, or unable to reach Temporal, and the worker down while admins read and
 * decide. In every case the provisioning starts without the hourly backstop (which never runs
 * here: no schedules), the upstream sandbox counts one purchase, and the books balance.
 */
let platform: BillingPlatform;
let upstream: UpstreamCatalogue;
let token: string;
let worker: WorkerProcess | null = null;

beforeAll(async () => {
  platform = await startBillingPlatform(PROVISION_TEST_ENV);
  upstream = await setUpUpstreamProduct(platform);
  upstream.sandbox.control.seedHosts(150);
  token = await platform.rootToken();
});
afterAll(async () => {
  await worker?.stop();
  await upstream?.sandbox.stop();
  await platform?.close();
});

type OutboxRow = { attempts: number; done_at: Date | null; last_error: string | null };

async function outboxRow(key: string): Promise<OutboxRow | null> {
  const [row] = await platform.deps.db.read<OutboxRow>('SELECT attempts, done_at, last_error FROM outbox WHERE key = $1', [key]);
  return row ?? null;
}

/** A port nothing listens on: an API pointed there cannot reach Temporal at all. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function buyer(amount = '2000.00'): Promise<TestClient> {
  const client = await registerClient(platform);
  await adjustBalance(platform, client.id, amount);
  return client;
}

/** The service of a purchase invoice provisioned to the end: active, bought once upstream. */
async function provisionedOnce(invoiceId: number) {
  const created = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoiceId } }), 600);
  const service = await serviceReaches(platform, created.id, ['active', 'failed']);
  expect(service.status).toBe('active');
  expect(upstream.sandbox.control.ledger().purchases[service.downstream_token ?? '']).toBe(1);
  return service;
}

async function backstopRuns(): Promise<number> {
  return platform.deps.db.models.TaskRun.count({ where: { task_key: 'billing.redispatch_fulfilment' } });
}

describe('an API killed right after a balance payment commits', () => {
  it('leaves the fulfilment in the outbox, and the relay starts the provisioning: bought once, books balanced', async () => {
    const client = await buyer();
    const invoice = await purchase(platform, client, upstream.productId);
    // The API holds its answer after the commit: the kill lands in between.
    const api = startApiProcess(platform, { TEST_HOLD_AFTER_COMMIT_MS: '120000' });
    const base = await api.ready;
    const paying = fetch(`${base}/api/v2/client/invoices/${invoice.id}/pay/balance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.token}`, accept: 'application/json' },
    }).catch((err: unknown) => err);
    await eventually(async () => ((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.status === 'paid' ? true : null));
    expect(await outboxRow(`fulfil:${invoice.id}`)).not.toBeNull();
    await api.kill();
    expect(await paying).toBeInstanceOf(Error);

    await provisionedOnce(invoice.id);
    const row = await outboxRow(`fulfil:${invoice.id}`);
    expect(row?.done_at).not.toBeNull();
    // Claimed by the relay (its one performer), not repaired by the backstop.
    expect(row?.attempts).toBeGreaterThanOrEqual(1);
    expect((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at).not.toBeNull();
    expect(await backstopRuns()).toBe(0);
    await expectBooksBalanced(platform);
  });
});

describe('an API that cannot reach Temporal', () => {
  it('accepts a balance payment, and the relay (with its own connection) starts the provisioning: bought once', async () => {
    const api = startApiProcess(platform, { TEMPORAL_ADDRESS: `127.0.0.1:${await deadPort()}` });
    try {
      const client = await buyer();
      const invoice = await purchase(platform, client, upstream.productId);
      const paid = await createApiClient(await api.ready).post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
      expect(paid.body).toMatchObject({ code: 0, data: { status: 'paid' } });
      await provisionedOnce(invoice.id);
      const row = await outboxRow(`fulfil:${invoice.id}`);
      expect(row).toMatchObject({ last_error: null });
      expect(row?.done_at).not.toBeNull();
      expect(row?.attempts).toBeGreaterThanOrEqual(1);
      expect(await backstopRuns()).toBe(0);
      await expectBooksBalanced(platform);
    } finally {
      await api.stop();
    }
  });

  it('opens a QR payment whose workflow the relay starts; paid, it is provisioned once', async () => {
    const api = startApiProcess(platform, { TEMPORAL_ADDRESS: `127.0.0.1:${await deadPort()}`, PUBLIC_BASE_URL: platform.baseUrl });
    try {
      const client = await registerClient(platform);
      const invoice = await purchase(platform, client, upstream.productId);
      const opened = await createApiClient(await api.ready).post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
      expect(opened.body).toMatchObject({ code: 0, data: { status: 'pending' } });
      const paymentKey = `payment:${opened.body.data.payment_no as string}`;
      const started = await eventually(async () => {
        const row = await outboxRow(paymentKey);
        return row?.done_at ? row : null;
      });
      expect(started).toMatchObject({ last_error: null });
      expect(started.attempts).toBeGreaterThanOrEqual(1);
      await buyerPays(opened.body.data.qr_code_url);
      await provisionedOnce(invoice.id);
      expect(await platform.deps.db.models.Payment.findOne({ where: { payment_no: opened.body.data.payment_no } })).toMatchObject({ status: 'paid' });
      await expectBooksBalanced(platform);
    } finally {
      await api.stop();
    }
  });
});

describe('with the worker stopped', () => {
  it('admin details answer from the read model, and decisions wait in the outbox until a worker is back', async () => {
    // A provisioning waiting for an admin (out of stock), while the worker still runs.
    upstream.sandbox.control.setStock(101, 0);
    const client = await buyer('5000.00');
    const invoice = await purchase(platform, client, upstream.productId);
    expect((await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token })).body.code).toBe(0);
    const created = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } }));
    const serviceId = created.id;
    const detailOf = () => platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    const waiting = await eventually(async () => {
      const res = await detailOf();
      return res.body.data.workflow_stage === 'awaiting_admin' ? res.body.data : null;
    }, 600);
    expect(waiting).toMatchObject({ workflow_live: true, workflow_status: 'RUNNING', runs: 1 });

    // A bound active service to renew (the renewal is paid while the worker is down).
    const services = Object.assign(platform, { sandbox: upstream.sandbox, upstreamPluginId: upstream.pluginId, supplierId: upstream.supplierId, productId: upstream.productId });
    const hostId = takeHost(services as ServicesPlatform);
    const renewedId = await createService(services as ServicesPlatform, { userId: client.id, productId: upstream.productId, hostId, price: '30.00' });

    for (const w of platform.workers) w.shutdown();
    await Promise.all(platform.workers.map((w) => eventually(async () => (w.getState() === 'STOPPED' ? true : null), 600)));
    await platform.relay?.stop();

    const stale = await detailOf();
    expect(stale.body.code).toBe(0);
    expect(stale.body.data).toMatchObject({ stage: 'awaiting_admin', workflow_live: false, workflow_stage: 'awaiting_admin', runs: null, status: 'failed' });

    const renewal = await platform.api.post(`/api/v2/client/services/${renewedId}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
    expect(renewal.body.code, renewal.body.message).toBe(0);
    const renewalId = renewal.body.data.id as number;
    expect((await platform.api.post(`/api/v2/client/invoices/${renewalId}/pay/balance`, { token: client.token })).body.code).toBe(0);
    // The payment stands; its fulfilment waits in the outbox for a worker's relay (the API starts nothing).
    expect(await outboxRow(`fulfil:${renewalId}`)).toMatchObject({ attempts: 0, done_at: null });
    expect((await platform.deps.db.models.Invoice.findByPk(renewalId))?.dispatched_at).toBeNull();
    // A relay pass (as another worker process would run it) starts the renewal workflow; no worker runs it.
    expect(await relayDueIntents(platform.deps)).toMatchObject({ claimed: 1, done: 1 });
    expect((await platform.deps.db.models.Invoice.findByPk(renewalId))?.dispatched_at).not.toBeNull();
    const order = await platform.api.get(`/api/v2/admin/service-orders/${renewalId}`, { token });
    expect(order.body.code).toBe(0);
    expect(order.body.data).toMatchObject({ status: 'pending', workflow: { live: false, status: 'RUNNING', stage: 'queued', runs: 0 } });

    upstream.sandbox.control.setStock(101, null);
    const retry = await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: { reason: '已补货' } });
    expect(retry.body).toMatchObject({ code: 0, data: { service_id: serviceId, stage: 'awaiting_admin', delivered: false } });
    expect(retry.body.message).toMatch(/\p{Script=Han}/u);
    const [decision] = await platform.deps.db.read<{ key: string; done_at: Date | null }>(
      "SELECT key, done_at FROM outbox WHERE kind = 'decide_provisioning' AND payload->>'service_id' = $1",
      [String(serviceId)],
    );
    expect(decision?.done_at).toBeNull();
    // The same decision again is the same row; the other one is refused while this one waits.
    const again = await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: {} });
    expect(again.body.data).toMatchObject({ delivered: false });
    const other = await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/cancel`, { token, body: { reason: '改主意' } });
    expect(other.body.code).toBe(40931);
    expect(await platform.deps.db.read("SELECT id FROM outbox WHERE kind = 'decide_provisioning' AND payload->>'service_id' = $1", [String(serviceId)])).toHaveLength(1);

    worker = startWorkerProcess(platform, PROVISION_TEST_ENV);
    await worker.ready;
    const service = await serviceReaches(platform, serviceId, ['active', 'cancelled']);
    expect(service.status).toBe('active');
    expect(upstream.sandbox.control.ledger().purchases[service.downstream_token ?? '']).toBe(1);
    // The relay marks the row done after the update returns, which may be after the workflow went on.
    const delivered = await eventually(async () => (await outboxRow(decision?.key ?? ''))?.done_at ?? null);
    expect(delivered).not.toBeNull();
    const renewed = await eventually(async () => {
      const row = await platform.deps.db.models.ServiceOrder.findOne({ where: { invoice_id: renewalId } });
      return row?.status === 'succeeded' ? row : null;
    }, 600);
    expect(upstream.sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
    expect(renewed.upstream_paid_at).not.toBeNull();
    const live = await detailOf();
    expect(live.body.data).toMatchObject({ workflow_live: true, workflow_status: 'COMPLETED', status: 'active' });
    expect(await backstopRuns()).toBe(0);
    await expectBooksBalanced(platform);
  }, 180_000);
});
