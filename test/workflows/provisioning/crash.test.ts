import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { buyWithBalance, PROVISION_TEST_ENV, serviceReaches, setUpUpstreamProduct, type UpstreamCatalogue } from '../../helpers/provisioning.js';
import { eventually } from '../../helpers/wait.js';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process.js';

let platform: TestPlatform;
let upstream: UpstreamCatalogue;
let worker: WorkerProcess | null = null;

// Steps time out quickly so the next worker takes over an abandoned step soon.
const env = { ...PROVISION_TEST_ENV, PROVISION_ACTIVITY_TIMEOUT_SECONDS: '5' };

beforeAll(async () => {
  platform = await startTestPlatform({ env });
  upstream = await setUpUpstreamProduct(platform);
});
afterAll(async () => {
  await worker?.stop();
  for await (const s of platform.temporal.schedule.list()) {
    if (s.scheduleId.startsWith(platform.deps.config.temporal.schedulePrefix)) await platform.temporal.schedule.getHandle(s.scheduleId).delete();
  }
  await upstream?.sandbox.stop();
  await platform?.close();
});

/**
 * The worker process is killed (SIGKILL) while the step's request is at the upstream (held there
 * by latency), a new worker process starts, and the provisioning still ends active with exactly
 * one purchase counted by the sandbox for the service's downstream reference.
 */
describe.each([
  ['login', '/finance_api_login'],
  ['cart', '/cart/add_to_shop'],
  ['checkout', '/cart/settle'],
  ['upstream pay', '/pay'],
  ['host lookup', '/host/header'],
])('a worker killed in the middle of the %s step', (_step, path) => {
  it('is replaced and the service ends active, bought once', async () => {
    const control = upstream.sandbox.control;
    worker = startWorkerProcess(platform, env);
    await worker.ready;
    control.resetCounters();
    control.setLatency(1500);
    try {
      const { serviceId } = await buyWithBalance(platform, upstream.productId);
      await eventually(async () => ((control.counters().paths[path] ?? 0) > 0 ? true : null), 600);
      await worker.kill();
      worker = startWorkerProcess(platform, env);
      await worker.ready;
      const service = await serviceReaches(platform, serviceId, ['active', 'failed']);
      expect(service.status).toBe('active');
      expect(control.ledger().purchases[service.downstream_token ?? '']).toBe(1);
    } finally {
      control.setLatency(0);
      await worker.stop();
      worker = null;
    }
  });
});
