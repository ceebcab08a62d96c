import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../helpers/api-process.js';
import { adjustBalance, createProduct, purchase, registerClient, type TestClient } from '../helpers/billing.js';
import { connectRfb } from '../helpers/rfb-client.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../helpers/services.js';
import { openConsole, redeemConsole, relayUrl } from '../helpers/vnc.js';
import { eventually } from '../helpers/wait.js';

/**
 * The API process (api/main.ts) stopped with SIGTERM as an orchestrator or a rolling restart does:
 * it drains first (health 503 while it still serves), then refuses new connections, answers what
 * is in flight, ends the console relay sessions with 1001, and exits 0. The slow request is a
 * balance payment held after its commit (`TEST_HOLD_AFTER_COMMIT_MS`, honoured with NODE_ENV=test).
 */
let platform: ServicesPlatform;
let client: TestClient;
let productId: number;

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '500.00');
  productId = (await createProduct(platform, '19.90')).id as number;
});
afterAll(() => platform?.close());

type Probe = { status: number; code: number; message: string; data: { status?: string } | null } | { refused: true } | { failed: string };

async function health(base: string): Promise<Probe> {
  try {
    const res = await fetch(`${base}/api/health`, { headers: { accept: 'application/json' } });
    const body = (await res.json()) as { code: number; message: string; data: { status?: string } | null };
    return { status: res.status, ...body };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return { refused: true };
    // A kept-alive connection the server closed as it stopped: the next probe opens a new one.
    return { failed: String(code) };
  }
}

describe('an API process stopped with SIGTERM', () => {
  it('drains (health 503), refuses new connections, answers the request in flight, closes the relay with 1001 and exits 0', async () => {
    const api = startApiProcess(platform, { TEST_HOLD_AFTER_COMMIT_MS: '10000', SHUTDOWN_DRAIN_SECONDS: '3', SHUTDOWN_GRACE_SECONDS: '60' });
    const base = await api.ready;
    const port = new URL(base).port;
    expect(await health(base)).toMatchObject({ status: 200, code: 0 });

    const hostId = takeHost(platform);
    const serviceId = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const redeemed = await redeemConsole(platform, (await openConsole(platform, client.token, serviceId)).token);
    const session = await connectRfb(relayUrl(redeemed).replace(/:\d+\//, `:${port}/`));

    const invoice = await purchase(platform, client, productId);
    const paying = fetch(`${base}/api/v2/client/invoices/${invoice.id}/pay/balance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.token}`, accept: 'application/json' },
    });
    // Committed, and the answer is held: the request is in flight when the signal comes.
    await eventually(async () => ((await platform.deps.db.models.Invoice.findByPk(invoice.id))?.status === 'paid' ? true : null));
    const exited = api.stop();

    const draining = await eventually(async () => {
      const probe = await health(base);
      return 'status' in probe && probe.status === 503 ? probe : null;
    });
    expect(draining).toMatchObject({ code: 50300, data: { status: 'stopping' } });
    expect(draining.message).toMatch(/服务正在停止/);

    await eventually(async () => ('refused' in (await health(base)) ? true : null));

    const answered = await paying;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ code: 0, data: { status: 'paid' } });
    expect(await session.closed).toEqual({ code: 1001, reason: '服务器维护' });
    expect(await exited).toBe(0);
    expect(api.output()).toContain('"api stopped"');
  });

  it('exits at once, with 1, on a second signal', async () => {
    const api = startApiProcess(platform, { SHUTDOWN_DRAIN_SECONDS: '300', SHUTDOWN_GRACE_SECONDS: '60' });
    const base = await api.ready;
    const exited = api.stop();
    await eventually(async () => {
      const probe = await health(base);
      return 'status' in probe && probe.status === 503 ? probe : null;
    });
    api.signal('SIGINT');
    expect(await exited).toBe(1);
    expect(api.output()).not.toContain('"api stopped"');
  });
});
