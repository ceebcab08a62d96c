import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CREDENTIALS } from '../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import { startBillingPlatform, type BillingPlatform } from '../../helpers/billing.js';
import { buyWithBalance, PROVISION_TEST_ENV, serviceReaches, setUpUpstreamProduct, type UpstreamCatalogue } from '../../helpers/provisioning.js';
import type { UpstreamSandbox } from '../../helpers/upstream-supplier.js';
import { eventually } from '../../helpers/wait.js';

/**
 * A restarted upstream (`npm run dev` stopped and started again): the sandbox keeps its state in
 * the data folder, so the demo goes on selling; an upstream that forgot its state and hands out a
 * host id one of our services holds stops the provisioning at once for an admin, with a Chinese
 * reason naming the host and the service (issue "One house": a constraint error treated as a
 * passing fault).
 */
let platform: BillingPlatform;
let upstream: UpstreamCatalogue;
let sandbox: UpstreamSandbox;
let token: string;
let port: number;
const dir = mkdtempSync(join(tmpdir(), 'upstream-state-'));
const stateFile = join(dir, 'sandbox-upstream.json');

const startSandbox = (withState: boolean) =>
  startUpstreamFinanceSandbox({ port, accounts: [SANDBOX_CREDENTIALS.upstream], ...(withState ? { stateFile } : {}) });

beforeAll(async () => {
  platform = await startBillingPlatform(PROVISION_TEST_ENV);
  upstream = await setUpUpstreamProduct(platform);
  token = await platform.rootToken();
  port = Number(new URL(upstream.sandbox.baseUrl).port);
  // The same address the plugin is configured with, now keeping its state in a file.
  await upstream.sandbox.stop();
  sandbox = await startSandbox(true);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function hostOf(serviceId: number): Promise<number> {
  const binding = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
  return Number(binding?.upstream_host_id);
}

describe('provisioning against a restarted upstream', () => {
  let firstService = 0;
  let firstHost = 0;

  it('buys again after the upstream sandbox restarts on its saved state, on a new host', async () => {
    const first = await buyWithBalance(platform, upstream.productId);
    expect((await serviceReaches(platform, first.serviceId, ['active', 'failed'])).status).toBe('active');
    firstService = first.serviceId;
    firstHost = await hostOf(first.serviceId);

    await sandbox.stop();
    sandbox = await startSandbox(true);
    // The restarted upstream still knows the host it sold.
    expect(sandbox.control.host(firstHost)?.status.toLowerCase()).toBe('active');

    const second = await buyWithBalance(platform, upstream.productId);
    expect((await serviceReaches(platform, second.serviceId, ['active', 'failed'])).status).toBe('active');
    expect(await hostOf(second.serviceId)).toBeGreaterThan(firstHost);
  });

  it('stops at once for an admin, naming the host and the service holding it, when an upstream hands out a host id we hold', async () => {
    // An upstream that lost its state counts its hosts from the start again.
    await sandbox.stop();
    sandbox = await startSandbox(false);
    const third = await buyWithBalance(platform, upstream.productId);
    const waiting = await eventually(async () => {
      const res = await platform.api.get(`/api/v2/admin/provisioning/${third.serviceId}`, { token });
      return res.body.data.stage === 'awaiting_admin' ? res.body.data : null;
    }, 600);
    expect(waiting.failure_code).toBe('upstream_host_taken');
    expect(waiting.failure_reason).toContain(`主机 #${firstHost}`);
    expect(waiting.failure_reason).toContain(`服务 #${firstService}`);
    // No database or English text reaches the admin, and nothing was retried.
    expect(waiting.failure_reason).not.toMatch(/[A-Za-z]{3,}/);
    expect(waiting.failure_reason).not.toContain('已重试多次');
    const retried = waiting.steps.filter((s: { status: string }) => s.status === 'failed');
    expect(retried).toEqual([expect.objectContaining({ stage: 'checkout' })]);
    // The first service keeps its host.
    expect(await hostOf(firstService)).toBe(firstHost);
  });
});
