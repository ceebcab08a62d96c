/** Knobs of one bench run, read from the environment. */
export type BenchSettings = {
  /** Measured seconds per target. */
  durationSeconds: number;
  /** Warm-up seconds per target, not counted. */
  warmupSeconds: number;
  connections: number;
  /** PostgreSQL pool size, the same for the API and the bare server. */
  poolMax: number;
  /** Users seeded into the database. */
  users: number;
  /** Connections of the public catalogue pairs (their p99 target is stated at 64). */
  catalogueConnections: number;
  /** Copies of the demo catalogue seeded. */
  catalogueCopies: number;
  /** Balance payments each side (API and bare) makes in the money bench. */
  moneyPayments: number;
  /** Distinct payment notifications each side gets (each sent twice) in the money bench. */
  moneyNotifications: number;
  /** Provisionings started at once in the provisioning bench, and the sandbox latency per upstream call. */
  provisionings: number;
  upstreamLatencyMs: number;
  /** Provisionings alone per side (one binding, three) of the routing cost in the provisioning-across-suppliers bench. */
  routingSamples: number;
  /** Concurrent console websocket sessions in the console bench (each side). */
  consoleSessions: number;
  /** Purchases (invoice + balance payment) each launcher gets in the cluster-beside-dev bench, and how many at once. */
  purchases: number;
  purchaseConnections: number;
  /** Runs of each authenticated pair (admin and client reads) in one bench run, each ratio printed. */
  repeat: number;
};

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, integer: boolean): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}=${raw} must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return value;
}

export function readBenchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  return {
    durationSeconds: positive(env, 'BENCH_DURATION', 10, false),
    warmupSeconds: positive(env, 'BENCH_WARMUP', 2, false),
    connections: positive(env, 'BENCH_CONNECTIONS', 32, true),
    poolMax: positive(env, 'DATABASE_POOL_MAX', 10, true),
    users: positive(env, 'BENCH_USERS', 200, true),
    catalogueConnections: positive(env, 'BENCH_CATALOGUE_CONNECTIONS', 64, true),
    catalogueCopies: positive(env, 'BENCH_CATALOGUE_COPIES', 10, true),
    moneyPayments: positive(env, 'BENCH_MONEY_PAYMENTS', 2000, true),
    moneyNotifications: positive(env, 'BENCH_MONEY_NOTIFICATIONS', 1500, true),
    provisionings: positive(env, 'BENCH_PROVISIONINGS', 200, true),
    upstreamLatencyMs: positive(env, 'BENCH_UPSTREAM_LATENCY_MS', 50, true),
    routingSamples: positive(env, 'BENCH_ROUTING_SAMPLES', 10, true),
    consoleSessions: positive(env, 'BENCH_CONSOLE_SESSIONS', 16, true),
    purchases: positive(env, 'BENCH_PURCHASES', 200, true),
    purchaseConnections: positive(env, 'BENCH_PURCHASE_CONNECTIONS', 16, true),
    repeat: positive(env, 'BENCH_REPEAT', 1, true),
  };
}
