// What the upstream funds check (issue #29, docs/economics.md) adds to one provisioning:
// `npx tsx bench/provisioning/funds-check.ts`. Throwaway PostgreSQL + Temporal, the API and a
// worker process, the upstream sandbox with BENCH_UPSTREAM_LATENCY_MS (50) per call; the
// provisioning bench (./run-provisioning.ts) with BENCH_PROVISIONINGS (20) at once, then one alone,
// then BENCH_FUNDS_SAMPLES (5) alone with the check and as many without (the sandbox leaves the
// bill's total out of its settle answer: nothing to check), alternating on the same worker. The
// full `npm run bench` prints the same figure with its 200 at once.
import { randomBytes } from 'node:crypto';
import { startEphemeralInfra } from '../../scripts/lib/infra.js';
import { createBenchDatabase } from '../lib/bench-database.js';
import { createCleanup } from '../lib/cleanup.js';
import { printBlock } from '../lib/print-table.js';
import { seedBenchData } from '../lib/seed.js';
import { startApi } from '../lib/start-api.js';
import { formatProvisioningTable, runProvisioningBench } from './run-provisioning.js';

const log = (m: string) => console.log(`[bench] ${m}`);
const positive = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
};

async function main(signal: AbortSignal): Promise<boolean> {
  const cleanup = createCleanup(log);
  try {
    const infra = await startEphemeralInfra(log);
    cleanup.add('infra', () => infra.stop());
    const database = await createBenchDatabase(infra.adminDatabaseUrl);
    if (process.env.DATABASE_URL) cleanup.add('database', () => database.drop());
    const secretKey = randomBytes(32).toString('base64url');
    await seedBenchData({ databaseUrl: database.url, temporalAddress: infra.temporalAddress, secretKey, users: 1, catalogueCopies: 1 });
    const api = await startApi({ databaseUrl: database.url, temporalAddress: infra.temporalAddress, secretKey, poolMax: 10 }, { signal, log });
    cleanup.add('api', () => api.stop());
    const result = await runProvisioningBench({
      api: api.baseUrl,
      apiPid: api.child.process.pid,
      databaseUrl: database.url,
      temporalAddress: infra.temporalAddress,
      secretKey,
      count: positive('BENCH_PROVISIONINGS', 20),
      latencyMs: positive('BENCH_UPSTREAM_LATENCY_MS', 50),
      fundsSamples: positive('BENCH_FUNDS_SAMPLES', 5),
      signal,
      log,
    });
    printBlock(formatProvisioningTable(result));
    return result.check.pass;
  } finally {
    await cleanup.run();
  }
}

const controller = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => controller.abort());
main(controller.signal).then(
  (pass) => process.exit(pass ? 0 : 1),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
