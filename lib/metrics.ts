import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus series of one process (API or worker), in one registry. Code that counts
 * something imports the metric from here and increments it; `/metrics` renders the registry.
 * Labels are small, closed vocabularies (route templates, stage names, outcomes, supplier and
 * plugin slugs), never ids or free text, so the series stay few.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template, HTTP status and envelope code',
  labelNames: ['method', 'route', 'status', 'code'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method and route template',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const cacheLookups = new Counter({
  name: 'cache_lookups_total',
  help: 'Process cache lookups, by cache and result (hit or miss)',
  labelNames: ['cache', 'result'] as const,
  registers: [metricsRegistry],
});

/*
 * The three counters of what the money and provisioning paths did are incremented once the
 * transaction that did it commits (`onCommit`, db/commit-hooks.ts), never inside it: rows they
 * could be read from at scrape time are millions (docs/operations.md "Metrics").
 */
export const paymentsSettled = new Counter({
  name: 'payments_settled_total',
  help: 'Payments settled (an invoice paid), by method',
  labelNames: ['method'] as const,
  registers: [metricsRegistry],
});

export const refundsRecorded = new Counter({
  name: 'refunds_total',
  help: 'Refunds, by destination and outcome',
  labelNames: ['destination', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const provisionings = new Counter({
  name: 'provisionings_total',
  help: 'Provisioning steps finished, by stage and outcome',
  labelNames: ['stage', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const upstreamCalls = new Counter({
  name: 'upstream_calls_total',
  help: 'Calls to suppliers, by supplier plugin and outcome',
  labelNames: ['supplier', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const pluginInvocations = new Counter({
  name: 'plugin_invocations_total',
  help: 'Plugin invocations, by plugin slug, plugin domain and outcome (success, failure, timeout)',
  labelNames: ['plugin', 'domain', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const scheduleRuns = new Counter({
  name: 'schedule_runs_total',
  help: 'Scheduled and manual task runs finished, by task key and status',
  labelNames: ['task', 'status'] as const,
  registers: [metricsRegistry],
});

export const logRowsDropped = new Counter({
  name: 'log_rows_dropped_total',
  help: 'Request log and audit rows not written (queue full or insert failed), by log',
  labelNames: ['log'] as const,
  registers: [metricsRegistry],
});

export const auditOutsideTransaction = new Counter({
  name: 'admin_audit_outside_transaction_total',
  help: 'Admin writes answered 2xx whose audit row no transaction wrote (nothing written, or a write no helper saw); the row was written after the answer. By route template',
  labelNames: ['route'] as const,
  registers: [metricsRegistry],
});

export const auditChainIntact = new Gauge({
  name: 'admin_audit_chain_intact',
  help: 'Result of the last admin audit chain verification in this process: 1 intact, 0 broken',
  registers: [metricsRegistry],
});

export const auditChainRows = new Gauge({
  name: 'admin_audit_chain_rows',
  help: 'Admin audit rows checked by the last chain verification in this process',
  registers: [metricsRegistry],
});

/**
 * Business facts that are rows (alerts, balances, work waiting): gauges read from the database at
 * scrape time, never counted in process, so a rolled-back transaction counts nothing and every
 * process answers the same. Each gauge is one bounded, indexed query, given by the process that
 * serves it (`watchFacts`, the API: `domain/economics/fact-gauges.ts`); without a source it is empty.
 */
export type FactGauge =
  | 'admin_alerts_open'
  | 'upstream_supplier_balance'
  | 'upstream_work_awaiting_funds'
  | 'upstream_supplier_breaker'
  | 'upstream_supplier_window_calls'
  | 'upstream_supplier_failure_ratio'
  | 'upstream_supplier_latency_p95_ms';
export type FactRow = { labels: Record<string, string>; value: number };

let factSource: ((gauge: FactGauge) => Promise<FactRow[]>) | null = null;

export function watchFacts(read: (gauge: FactGauge) => Promise<FactRow[]>): () => void {
  factSource = read;
  return () => {
    if (factSource === read) factSource = null;
  };
}

function factGauge(name: FactGauge, help: string, labelNames: readonly string[]) {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [metricsRegistry],
    async collect() {
      const read = factSource;
      const rows = read ? await read(name).catch(() => []) : [];
      this.reset();
      for (const row of rows) this.set(Object.fromEntries(Object.entries(row.labels).map(([k, v]) => [k, label(v)])), row.value);
    },
  });
}

factGauge('admin_alerts_open', 'Admin alerts not yet read (price drift, funds shortage, runway, reconciliation), by kind, counted from admin_alerts', ['kind']);
factGauge('upstream_supplier_balance', 'Last read balance of each supplier account (CNY), by supplier code, from supplier_balances', ['supplier']);
factGauge('upstream_work_awaiting_funds', 'Provisionings and service orders waiting in awaiting_upstream_funds, counted from their rows', []);
factGauge('upstream_supplier_breaker', 'Circuit breaker of each supplier: 1 for its current state (closed, open, half_open), 0 for the others, by supplier code, from supplier_breakers', ['supplier', 'state']);
factGauge('upstream_supplier_window_calls', 'Calls to each supplier within the health window (economics.health_window_minutes), by supplier code, from supplier_calls', ['supplier']);
factGauge('upstream_supplier_failure_ratio', 'Share (0..1) of failed calls to each supplier within the health window, by supplier code; absent without calls', ['supplier']);
factGauge('upstream_supplier_latency_p95_ms', '95th percentile latency of calls to each supplier within the health window, in milliseconds, by supplier code; absent without calls', ['supplier']);

/** Connection pool of a process's database, read at scrape time. */
export type PoolStats = { size: number; available: number; using: number; waiting: number; max: number };

const pools = new Map<string, () => PoolStats>();

export function watchPool(name: string, stats: () => PoolStats): () => void {
  pools.set(name, stats);
  return () => pools.delete(name);
}

new Gauge({
  name: 'db_pool_connections',
  help: 'Database pool connections, by pool and state (open, idle, in use, waiting requests, max)',
  labelNames: ['pool', 'state'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [pool, stats] of pools) {
      try {
        const s = stats();
        this.set({ pool, state: 'open' }, s.size);
        this.set({ pool, state: 'idle' }, s.available);
        this.set({ pool, state: 'in_use' }, s.using);
        this.set({ pool, state: 'waiting' }, s.waiting);
        this.set({ pool, state: 'max' }, s.max);
      } catch {
        // A closed pool: nothing to report.
      }
    }
  },
});

/**
 * Revenue, refunds and upstream cost by supplier (docs/economics.md): gauges read from the
 * database at scrape time, so every API process answers the same all-time figures (counters per
 * process would split them). One read serves the three gauges of a scrape (kept 5 s).
 */
export type SupplierMoney = { supplier: string; revenue: string; refunds: string; cost: string };

let economicsSource: (() => Promise<SupplierMoney[]>) | null = null;
let economicsRead: { at: number; rows: Promise<SupplierMoney[]> } | null = null;
const ECONOMICS_READ_MS = 5_000;

export function watchEconomics(read: () => Promise<SupplierMoney[]>): () => void {
  economicsSource = read;
  economicsRead = null;
  return () => {
    if (economicsSource === read) economicsSource = null;
    economicsRead = null;
  };
}

function readEconomics(): Promise<SupplierMoney[]> {
  const source = economicsSource;
  if (!source) return Promise.resolve([]);
  if (!economicsRead || Date.now() - economicsRead.at > ECONOMICS_READ_MS) {
    economicsRead = { at: Date.now(), rows: source().catch(() => []) };
  }
  return economicsRead.rows;
}

function economicsGauge(name: string, help: string, field: 'revenue' | 'refunds' | 'cost') {
  return new Gauge({
    name,
    help,
    labelNames: ['supplier'] as const,
    registers: [metricsRegistry],
    async collect() {
      const rows = await readEconomics();
      this.reset();
      for (const row of rows) this.set({ supplier: label(row.supplier) }, Number(row[field]));
    },
  });
}

economicsGauge('economics_revenue_yuan', 'Paid service invoices (purchase, renewal, traffic package, upgrade) by supplier code, all time, CNY', 'revenue');
economicsGauge('economics_refunds_yuan', 'Succeeded refunds of those invoices by supplier code, all time, CNY', 'refunds');
economicsGauge('economics_upstream_cost_yuan', 'Recorded upstream costs (upstream_costs) by supplier code, all time, CNY; unknown costs count as nothing', 'cost');

/**
 * The backups (docs/production.md "Back up"): the newest base backup's age and the last
 * successful WAL archive, read from the database at scrape time (kept 5 s), so every API answers
 * the server's figures. -1 when there is none (no backup taken, archiving never succeeded).
 */
export type BackupFigures = { backupAgeSeconds: number | null; walArchivedAgeSeconds: number | null; walArchiveFailing: boolean };

let backupSource: (() => Promise<BackupFigures | null>) | null = null;
let backupRead: { at: number; figures: Promise<BackupFigures | null> } | null = null;

export function watchBackups(read: () => Promise<BackupFigures | null>): () => void {
  backupSource = read;
  backupRead = null;
  return () => {
    if (backupSource === read) backupSource = null;
    backupRead = null;
  };
}

function readBackups(): Promise<BackupFigures | null> {
  const source = backupSource;
  if (!source) return Promise.resolve(null);
  if (!backupRead || Date.now() - backupRead.at > ECONOMICS_READ_MS) backupRead = { at: Date.now(), figures: source().catch(() => null) };
  return backupRead.figures;
}

function backupGauge(name: string, help: string, value: (f: BackupFigures) => number) {
  return new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    async collect() {
      const figures = await readBackups();
      this.reset();
      if (figures) this.set(value(figures));
    },
  });
}

backupGauge('database_backup_age_seconds', 'Seconds since the newest base backup finished (database_backups); -1 when none was taken', (f) => f.backupAgeSeconds ?? -1);
backupGauge('wal_archive_last_success_age_seconds', 'Seconds since the server last archived a WAL segment (pg_stat_archiver); -1 when it never did', (f) => f.walArchivedAgeSeconds ?? -1);
backupGauge('wal_archive_failing', '1 when the last WAL archive attempt failed and none succeeded since (pg_stat_archiver), else 0', (f) => (f.walArchiveFailing ? 1 : 0));

/** Bounded label text: the vocabularies are small, but a label must never carry input. */
export function label(value: string | null | undefined, fallback = 'unknown'): string {
  if (!value) return fallback;
  return /^[A-Za-z0-9_.:/{}-]{1,80}$/.test(value) ? value : fallback;
}
