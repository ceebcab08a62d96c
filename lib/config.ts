import { z } from 'zod';
import { parseTrustedProxies, type TrustedProxies } from './client-address.js';
import { tracingEnabled } from './tracing.js';

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

/** `scheme://host[:port]` exactly as a browser sends it in `Origin` (no path, no trailing slash). */
function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** Actions a verified e-mail or real name may be required for (`ACCESS_*_REQUIRED_FOR`, comma-separated). */
export const ACCESS_ACTIONS = ['purchase', 'recharge', 'withdrawal', 'ticket'] as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[number];

const accessActions = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((a) => a.trim()).filter(Boolean))
  .refine((list) => list.every((a) => (ACCESS_ACTIONS as readonly string[]).includes(a)), `each one of ${ACCESS_ACTIONS.join(', ')}`)
  .transform((list) => list as AccessAction[]);

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  ALLOW_PRIVATE_UPSTREAMS: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  HOST: z.string().default('0.0.0.0'),
  PORT: port(8080),
  PUBLIC_BASE_URL: z.string().url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('platform'),
  TEMPORAL_AUTOMATION_QUEUE: z.string().min(1).default('automation'),
  TEMPORAL_SCHEDULE_PREFIX: z.string().default(''),
  TEMPORAL_UI_URL: z.string().url().default('http://localhost:8233'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(2000).default(100),
  OUTBOX_RELAY_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(64),
  APP_SECRET_KEY: z.string().min(32).optional(),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  CATALOGUE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  SITE_NAME: z.string().trim().min(1).max(64).default('主机转售平台'),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 86400).default(7200),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
  LOGIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(30),
  LOGIN_MAX_FAILURES_PER_ACCOUNT_GLOBAL: z.coerce.number().int().min(1).default(50),
  LOGIN_THROTTLE_IPV6_PREFIX: z.coerce.number().int().min(16).max(128).default(64),
  LOGIN_THROTTLE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseTrustedProxies(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
    .superRefine((origins, ctx) => {
      for (const origin of origins) {
        if (!isExactOrigin(origin)) ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin like https://shop.example.com (scheme, host, optional port; no path)` });
      }
    }),
  PLUGINS_DIR: z.string().min(1).optional(),
  QRPAY_PAYMENT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  QRPAY_POLL_INTERVALS_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated whole seconds')
    .default('5,10,15,30,60')
    .transform((v) => v.split(',').map(Number))
    .refine((list) => list.every((n) => n >= 1 && n <= 3600), 'each interval 1..3600 seconds'),
  PROVISION_ACTIVITY_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(600).default(60),
  PROVISION_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  PROVISION_HOST_POLL_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated whole seconds')
    .default('5,10,20,30')
    .transform((v) => v.split(',').map(Number))
    .refine((list) => list.every((n) => n >= 1 && n <= 3600), 'each interval 1..3600 seconds'),
  PROVISION_HOST_WAIT_MINUTES: z.coerce.number().int().min(1).max(10_080).default(120),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DAILY_SCHEDULE_TIME: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'must be HH:mm (00:00-23:59)' })
    .default('03:00'),
  SCHEDULE_HOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  TASK_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  PLUGIN_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  LOGIN_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  NOTIFICATION_LOG_RETENTION_DAYS: z.coerce.number().int().min(30).max(3650).default(180),
  API_REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  SYSTEM_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  METRICS_TOKEN: z.string().min(16).max(256).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  TEMPORAL_METRICS_BIND_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, 'host:port')
    .optional(),
  RENEWAL_INVOICE_LEAD_DAYS: z.coerce.number().int().min(1).max(60).default(7),
  RENEWAL_REMINDER_DAYS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated whole days')
    .default('7,3,1')
    .transform((v) => [...new Set(v.split(',').map(Number))].sort((a, b) => a - b))
    .refine((list) => list.every((n) => n >= 1 && n <= 60), 'each 1..60 days'),
  INVOICE_UNPAID_REMINDER_HOURS: z.coerce.number().int().min(1).max(168).default(12),
  SUSPEND_AFTER_DAYS: z.coerce.number().int().min(0).max(60).default(3),
  TERMINATE_AFTER_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  STALE_INVOICE_CANCEL_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  TEST_HOLD_AFTER_COMMIT_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  VNC_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  VNC_MAX_SESSION_SECONDS: z.coerce.number().int().min(1).max(86_400).default(14_400),
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(20),
  DATA_DIR: z.string().min(1).default('./data'),
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z.string().min(1).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  ASSET_URL_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(300),
  VERIFICATION_FREE_ATTEMPTS: z.coerce.number().int().min(0).max(100).default(1),
  VERIFICATION_FEE: z
    .string()
    .regex(/^\d{1,6}(\.\d{1,2})?$/, 'yuan with at most two decimals')
    .default('0.00'),
  VERIFICATION_ATTEMPT_SECONDS: z.coerce.number().int().min(3).max(86_400).default(1800),
  VERIFICATION_POLL_INTERVALS_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated whole seconds')
    .default('5,10,20,40,60')
    .transform((v) => v.split(',').map(Number))
    .refine((list) => list.every((n) => n >= 1 && n <= 3600), 'each interval 1..3600 seconds'),
  ACCESS_EMAIL_REQUIRED_FOR: accessActions,
  ACCESS_REALNAME_REQUIRED_FOR: accessActions,
  AUTH_CODE_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  AUTH_CODE_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  AUTH_CODE_RESEND_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  AUTH_CODE_MAX_PER_ADDRESS_HOUR: z.coerce.number().int().min(1).max(1000).default(5),
  AUTH_CODE_MAX_PER_IP_HOUR: z.coerce.number().int().min(1).max(10_000).default(20),
});

/**
 * What each variable is for, beside the schema (data, not behaviour): `npm run docs:generate`
 * writes the table of docs/configuration.md from it and the schema's defaults. `default` is given
 * only where the schema has none to show (required, or computed elsewhere).
 */
export const configVariables: Record<keyof typeof envSchema.shape, { description: string; default?: string }> = {
  NODE_ENV: { description: '`development`, `test` or `production` (what differs: docs/production.md "Development and production")' },
  ALLOW_PRIVATE_UPSTREAMS: {
    description:
      'staging only (`true`/`false`/`1`/`0`): with `NODE_ENV=production`, supplier base URLs and upstream console addresses may be plain HTTP/WS and private (local sandboxes); every other production rule stays (docs/production.md "Development and production")',
  },
  HOST: { description: 'API listen address' },
  PORT: { description: 'API listen port' },
  PUBLIC_BASE_URL: { description: "the API's public URL (callback URLs)", default: '`http://localhost:$PORT`' },
  DATABASE_URL: { description: 'PostgreSQL connection URL', default: '— (required)' },
  DATABASE_POOL_MAX: { description: 'connection pool size per process' },
  TEMPORAL_ADDRESS: { description: 'Temporal frontend, `host:port`', default: '— (required)' },
  TEMPORAL_NAMESPACE: { description: 'Temporal namespace' },
  TEMPORAL_TASK_QUEUE: { description: 'queue of the provisioning, payment, renewal and refund workflows' },
  TEMPORAL_AUTOMATION_QUEUE: { description: 'queue of schedules and tasks' },
  TEMPORAL_SCHEDULE_PREFIX: { description: 'prefix of schedule ids (lets several deployments share a namespace)' },
  TEMPORAL_UI_URL: { description: 'base of the Temporal UI links the admin API returns' },
  WORKER_CONCURRENCY: { description: 'workflow tasks, activities and local activities a worker runs at once on the platform queue (provisionings run their steps inside their workflow task)' },
  OUTBOX_RELAY_CONCURRENCY: {
    description: "outbox rows a worker process's relay performs at once (workflow starts, signals, updates); it claims only as many rows as it has free places, so other workers' relays take the rest (docs/fulfilment.md \"Durability\")",
  },
  APP_SECRET_KEY: {
    description: 'root secret, at least 32 characters: token signing and the AES-256-GCM box for secrets at rest (separate keys derived by HKDF)',
    default: '— (required)',
  },
  AUTH_CACHE_TTL_MS: { description: 'how long an API process reuses a resolved session (0 disables); revocations reach every process at once through PostgreSQL `LISTEN/NOTIFY`' },
  CATALOGUE_CACHE_TTL_MS: { description: 'lifetime of the public catalogue read cache of an API process (0 disables); catalogue writes clear every process at once through `LISTEN/NOTIFY`, the lifetime is only a safety net' },
  SITE_NAME: { description: 'site name answered by `GET /api/v2/site/config` and `/home` (default of setting `site.name`)' },
  ACCESS_TOKEN_TTL_SECONDS: { description: 'access token lifetime' },
  LOGIN_MAX_FAILURES_PER_ACCOUNT: { description: 'failed logins allowed per window per account and address together, before that address gets 42900 (docs/security.md "Login throttling")' },
  LOGIN_MAX_FAILURES_PER_IP: { description: 'failed logins allowed per window per address over all accounts' },
  LOGIN_MAX_FAILURES_PER_ACCOUNT_GLOBAL: { description: 'failed logins on one account from all addresses per window; past it each address gets one guess per window on that account (the account is never locked)' },
  LOGIN_THROTTLE_IPV6_PREFIX: { description: 'IPv6 clients are counted by this prefix length' },
  LOGIN_THROTTLE_WINDOW_SECONDS: { description: 'sliding login throttle window' },
  TRUST_PROXY: {
    description: 'reverse proxies whose `X-Forwarded-For` is believed: `0`/`false`/unset none; a comma-separated list of IPv4/IPv6 addresses and CIDR ranges (`127.0.0.1,10.0.0.0/8,::1`); `1`/`true` loopback and private ranges (docs/security.md "Client address")',
    default: 'unset (none)',
  },
  CORS_ORIGINS: { description: 'browser origins allowed to call the API cross-origin, exact `scheme://host[:port]`, comma-separated; empty allows none (docs/security.md "Security headers and CORS")' },
  PLUGINS_DIR: { description: 'root of the plugin folders `<domain>/<slug>/` (tests point it at fixtures)', default: 'the repository\'s `plugins/`' },
  QRPAY_PAYMENT_WINDOW_SECONDS: { description: 'how long a QR payment can be paid; then its workflow closes the trade at the gateway and gives back a balance part' },
  QRPAY_POLL_INTERVALS_SECONDS: { description: "the payment workflow's gateway queries: seconds between them, the last one repeating until the window ends" },
  PROVISION_ACTIVITY_TIMEOUT_SECONDS: { description: 'how long one provisioning step (one or two upstream calls) may take before it is retried' },
  PROVISION_MAX_ATTEMPTS: { description: 'attempts of a failing upstream step (backoff 2 s doubling to 1 min) before the provisioning waits for an admin' },
  PROVISION_HOST_POLL_SECONDS: { description: 'seconds between looks at a new upstream host until it is active (the last repeats)' },
  PROVISION_HOST_WAIT_MINUTES: { description: 'how long a new host may stay pending before the provisioning waits for an admin' },
  LOG_LEVEL: { description: 'pino level (`silent` … `trace`)' },
  DAILY_SCHEDULE_TIME: { description: '`HH:mm` of the daily schedule, Asia/Shanghai (applied to the Temporal Schedule when a worker starts)' },
  SCHEDULE_HOOK_TIMEOUT_MS: { description: 'how long one schedule-hook listener may run before it is given up with a warning' },
  TASK_RUN_RETENTION_DAYS: { description: 'task runs older than this are deleted by the daily `logs.retention_cleanup` task (running ones never)' },
  PLUGIN_LOG_RETENTION_DAYS: { description: 'same for plugin runtime logs (including hook listener records)' },
  LOGIN_LOG_RETENTION_DAYS: { description: 'same for login logs' },
  NOTIFICATION_LOG_RETENTION_DAYS: { description: 'same for the notification log; must exceed `STALE_INVOICE_CANCEL_DAYS`, or an old unpaid invoice would be reminded again' },
  API_REQUEST_LOG_RETENTION_DAYS: { description: 'same for the API request log' },
  SYSTEM_LOG_RETENTION_DAYS: { description: 'same for the system log (the admin audit is never deleted)' },
  METRICS_TOKEN: { description: 'bearer token `/metrics` requires (16–256 characters); on the public API port `/metrics` exists only with it (docs/operations.md "Metrics")' },
  METRICS_HOST: { description: 'address of the internal metrics listeners' },
  METRICS_PORT: { description: "the API's internal `/metrics` listener" },
  WORKER_METRICS_PORT: { description: "the worker's `/metrics` listener (with the Temporal SDK's series)" },
  TEMPORAL_METRICS_BIND_ADDRESS: { description: "where the worker's Temporal core runtime serves its Prometheus metrics", default: '`127.0.0.1:9466` with a worker metrics port' },
  RENEWAL_INVOICE_LEAD_DAYS: { description: 'renewal invoices are made, and auto-renew pays them, this many days before the due date' },
  RENEWAL_REMINDER_DAYS: { description: 'renewal reminders before the due date, one per threshold (days, comma-separated)' },
  INVOICE_UNPAID_REMINDER_HOURS: { description: 'an unpaid purchase or traffic-package invoice is reminded once, this many hours after creation' },
  SUSPEND_AFTER_DAYS: { description: 'grace after the due date before an unrenewed service is suspended' },
  TERMINATE_AFTER_DAYS: { description: 'days a service stays suspended for non-payment before it is terminated' },
  STALE_INVOICE_CANCEL_DAYS: { description: 'unpaid purchase and traffic-package invoices are cancelled after this many days' },
  TEST_HOLD_AFTER_COMMIT_MS: { description: 'crash tests only (honoured with `NODE_ENV=test`): a balance payment holds its answer and its own dispatch this long after its commit' },
  VNC_IDLE_TIMEOUT_SECONDS: { description: 'a browser console session with no byte either way for this long is closed (code 4001; docs/console.md)' },
  VNC_MAX_SESSION_SECONDS: { description: 'a browser console session is closed after this long in all (code 4002)' },
  SHUTDOWN_DRAIN_SECONDS: { description: 'on SIGTERM an API first answers `/api/health` with 503 for this long while it still serves, so a load balancer takes it out (docs/production.md "Stopping (SIGTERM)")' },
  SHUTDOWN_GRACE_SECONDS: { description: "after the drain, an API gives requests in flight this long to finish; a worker gives its in-flight activities this long before they are cancelled and retried elsewhere. Keep drain + grace + 10 s below the orchestrator's kill timeout" },
  DATA_DIR: { description: 'uploaded files are stored under `<DATA_DIR>/media` (random names, never a served folder; `npm run dev` points it at `.data`)' },
  STORAGE_DRIVER: { description: '`local` (disk under `DATA_DIR`) or `s3` (an S3-compatible bucket, for several API processes; docs/support.md "Uploads and signed file links")' },
  S3_ENDPOINT: { description: 'endpoint of the `STORAGE_DRIVER=s3` bucket (the AWS one when unset)' },
  S3_REGION: { description: 'region of the bucket' },
  S3_BUCKET: { description: 'the bucket (required with `STORAGE_DRIVER=s3`); objects stay private, read only by the API' },
  S3_ACCESS_KEY_ID: { description: 'access key of the bucket (required with `STORAGE_DRIVER=s3`)' },
  S3_SECRET_ACCESS_KEY: { description: 'secret key of the bucket (required with `STORAGE_DRIVER=s3`)' },
  S3_FORCE_PATH_STYLE: { description: 'path-style bucket URLs (`true`/`false`/`1`/`0`)' },
  ASSET_URL_TTL_SECONDS: { description: 'lifetime of a signed link to a private file (ticket attachments); public content images use hour windows (valid 1–2 h)' },
  VERIFICATION_FREE_ATTEMPTS: { description: 'free real-name verification attempts per account: default of setting `verification.free_attempts` (docs/identity.md)' },
  VERIFICATION_FEE: { description: 'default of `verification.fee`: fee (yuan) of each attempt after the free ones; `0.00` keeps every attempt free' },
  VERIFICATION_ATTEMPT_SECONDS: { description: 'default of `verification.attempt_seconds`: lifetime of one attempt, then its workflow expires it' },
  VERIFICATION_POLL_INTERVALS_SECONDS: { description: "the verification workflow's provider queries between callbacks (the last interval repeats)" },
  ACCESS_EMAIL_REQUIRED_FOR: { description: 'actions (`purchase`, `recharge`, `withdrawal`, `ticket`, comma-separated) that need a verified e-mail, 40301 otherwise: default of `access.email_required_for`' },
  ACCESS_REALNAME_REQUIRED_FOR: { description: 'the same for a real-name verification: default of `access.real_name_required_for`' },
  AUTH_CODE_TTL_SECONDS: { description: 'lifetime of an e-mail verification or password reset code' },
  AUTH_CODE_MAX_ATTEMPTS: { description: 'wrong guesses allowed per code' },
  AUTH_CODE_RESEND_SECONDS: { description: 'minimum interval between two codes to one address' },
  AUTH_CODE_MAX_PER_ADDRESS_HOUR: { description: 'codes per hour to one address (and per account)' },
  AUTH_CODE_MAX_PER_IP_HOUR: { description: 'codes per hour requested from one client address' },
};

export type AppConfig = {
  env: 'development' | 'test' | 'production';
  /**
   * Staging (`ALLOW_PRIVATE_UPSTREAMS`): production, except that supplier base URLs and upstream
   * console addresses may be plain HTTP/WS and private (domain/suppliers/base-url-policy.ts).
   */
  allowPrivateUpstreams: boolean;
  host: string;
  port: number;
  publicBaseUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    automationQueue: string;
    schedulePrefix: string;
    uiUrl: string;
    /** Workflow tasks, activities and local activities a worker runs at once on the platform queue. */
    workerConcurrency: number;
    /** Outbox rows the relay of one worker process performs at once (`OUTBOX_RELAY_CONCURRENCY`). */
    outboxRelayConcurrency: number;
  };
  secretKey: string;
  accessTokenTtlSeconds: number;
  authCacheTtlMs: number;
  /** Public catalogue read cache lifetime; invalidated at once by catalogue writes (0 disables). */
  catalogueCacheTtlMs: number;
  /** Shown by `GET /api/v2/site/config` and the home page. */
  siteName: string;
  /**
   * Failed logins allowed per window: per account and address together, per address over all
   * accounts, and per account over all addresses (past that, each address gets one guess per
   * window on the account); IPv6 addresses are counted by this prefix length.
   */
  loginThrottle: {
    maxFailuresPerAccount: number;
    maxFailuresPerIp: number;
    maxFailuresPerAccountGlobal: number;
    windowSeconds: number;
    ipv6PrefixLength: number;
  };
  /** Proxies whose `X-Forwarded-For` is believed (`TRUST_PROXY`); empty trusts nobody. */
  trustedProxies: TrustedProxies;
  /** Browser origins allowed to call the API cross-origin (`CORS_ORIGINS`); empty allows none. */
  corsOrigins: string[];
  logLevel: string;
  /** Root of the plugin folders (`<root>/<domain>/<slug>`); unset means the repository's `plugins/`. */
  pluginsDir?: string;
  /** Daily schedule time (Asia/Shanghai) and how long one hook listener may take. */
  schedules: { dailyAt: { hour: number; minute: number }; hookTimeoutMs: number };
  /** Days kept by the daily log-retention task. */
  retention: {
    taskRunDays: number;
    pluginLogDays: number;
    loginLogDays: number;
    notificationLogDays: number;
    apiRequestLogDays: number;
    systemLogDays: number;
  };
  /**
   * Prometheus `/metrics` (docs/operations.md "Metrics"): the token a scraper sends as a bearer token (the
   * API serves `/metrics` on its own port only with a token), and the internal listeners of the
   * API and the worker (host and ports); the Temporal SDK's own metrics address in the worker.
   */
  metrics: { token?: string; host: string; apiPort?: number; workerPort?: number; temporalBindAddress?: string };
  /** OpenTelemetry tracing is on (the OTEL_* variables ask for an exporter; docs/operations.md "Traces"). */
  tracing: boolean;
  /**
   * The service lifecycle jobs: renewal invoices (and auto-renew) this many days before the due
   * date; renewal reminders at these days before it (ascending); unpaid-invoice reminders this
   * many hours after creation; suspension this many days after the due date, termination this
   * many days after suspension; unpaid purchase and traffic-package invoices cancelled after these days.
   */
  lifecycle: {
    renewalLeadDays: number;
    reminderDays: number[];
    unpaidReminderHours: number;
    suspendAfterDays: number;
    terminateAfterDays: number;
    staleInvoiceDays: number;
  };
  /** QR payments: how long a QR code may be paid, and the gateway polling backoff (the last interval repeats). */
  payments: { qrWindowSeconds: number; qrPollIntervalsSeconds: number[] };
  /**
   * Provisioning: how long one upstream step may take, how often a failing step is retried before
   * an admin decides, how often the new host is looked at (the last interval repeats) and how long.
   */
  provisioning: { activityTimeoutSeconds: number; maxAttempts: number; hostPollSeconds: number[]; hostWaitMinutes: number };
  /**
   * Crash tests only (`TEST_HOLD_AFTER_COMMIT_MS`, honoured with NODE_ENV=test, else 0): a balance
   * payment holds its answer this long after its commit, so a test can kill or stop the process
   * in between.
   */
  testHoldAfterCommitMs: number;
  /** Browser console relay: closed after this long without a byte either way, and after this long in all. */
  vnc: { idleTimeoutSeconds: number; maxSessionSeconds: number };
  /**
   * Graceful stop on SIGTERM (docs/production.md "Stopping (SIGTERM)"): an API first answers `/api/health` with 503 for
   * `drainSeconds` while still serving, so a balancer takes it out; then it stops accepting
   * connections and gives requests in flight `graceSeconds` to finish. A worker gives its
   * in-flight activities `graceSeconds` before they are cancelled and handed back to Temporal.
   */
  shutdown: { drainSeconds: number; graceSeconds: number };
  /**
   * Uploaded files (docs/support.md): local disk under `<dataDir>/media` (never a
   * served folder) or an S3-compatible bucket; private asset links live `assetUrlTtlSeconds`.
   */
  storage: {
    driver: 'local' | 's3';
    dataDir: string;
    s3: { endpoint?: string; region: string; bucket?: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean };
    assetUrlTtlSeconds: number;
  };
  /**
   * Real-name verification defaults (until the settings kernel's \`verification\` group holds
   * them): free attempts per user, the fee of each further attempt (yuan), an attempt's lifetime,
   * and the provider polling backoff (the last interval repeats).
   */
  verification: { freeAttempts: number; fee: string; attemptSeconds: number; pollIntervalsSeconds: number[] };
  /** Which actions need a verified e-mail and which a real-name verification (settings group \`access\`). */
  access: { emailRequiredFor: AccessAction[]; realNameRequiredFor: AccessAction[] };
  /** One-time codes (e-mail verification, password reset): lifetime, wrong guesses per code, resend interval and hourly sends per address and per IP. */
  authCodes: { ttlSeconds: number; maxAttempts: number; resendSeconds: number; maxPerAddressHour: number; maxPerIpHour: number };
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads the process environment once. The dev and test launchers fill in DATABASE_URL,
 * TEMPORAL_ADDRESS and APP_SECRET_KEY before the API or worker starts, so every process,
 * embedded or not, is configured only through these variables.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid environment: ${detail}`);
  }
  const e = parsed.data;
  const missing = (['DATABASE_URL', 'TEMPORAL_ADDRESS', 'APP_SECRET_KEY'] as const).filter((k) => !e[k]);
  if (missing.length > 0) throw new ConfigError(`missing environment variables: ${missing.join(', ')}`);
  // A notification log row must outlive the invoice it reminds of, or the reminder would go out again.
  if (e.STORAGE_DRIVER === 's3' && !(e.S3_BUCKET && e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('invalid environment: STORAGE_DRIVER=s3 needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  }
  if (e.NOTIFICATION_LOG_RETENTION_DAYS <= e.STALE_INVOICE_CANCEL_DAYS) {
    throw new ConfigError('invalid environment: NOTIFICATION_LOG_RETENTION_DAYS must be greater than STALE_INVOICE_CANCEL_DAYS');
  }
  return {
    env: e.NODE_ENV,
    allowPrivateUpstreams: e.ALLOW_PRIVATE_UPSTREAMS,
    host: e.HOST,
    port: e.PORT,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`,
    databaseUrl: e.DATABASE_URL as string,
    databasePoolMax: e.DATABASE_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS as string,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      automationQueue: e.TEMPORAL_AUTOMATION_QUEUE,
      schedulePrefix: e.TEMPORAL_SCHEDULE_PREFIX,
      uiUrl: e.TEMPORAL_UI_URL,
      workerConcurrency: e.WORKER_CONCURRENCY,
      outboxRelayConcurrency: e.OUTBOX_RELAY_CONCURRENCY,
    },
    secretKey: e.APP_SECRET_KEY as string,
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    catalogueCacheTtlMs: e.CATALOGUE_CACHE_TTL_MS,
    siteName: e.SITE_NAME,
    loginThrottle: {
      maxFailuresPerAccount: e.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
      maxFailuresPerAccountGlobal: e.LOGIN_MAX_FAILURES_PER_ACCOUNT_GLOBAL,
      windowSeconds: e.LOGIN_THROTTLE_WINDOW_SECONDS,
      ipv6PrefixLength: e.LOGIN_THROTTLE_IPV6_PREFIX,
    },
    trustedProxies: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS,
    logLevel: e.LOG_LEVEL,
    ...(e.PLUGINS_DIR ? { pluginsDir: e.PLUGINS_DIR } : {}),
    schedules: {
      dailyAt: { hour: Number(e.DAILY_SCHEDULE_TIME.slice(0, 2)), minute: Number(e.DAILY_SCHEDULE_TIME.slice(3, 5)) },
      hookTimeoutMs: e.SCHEDULE_HOOK_TIMEOUT_MS,
    },
    retention: {
      taskRunDays: e.TASK_RUN_RETENTION_DAYS,
      pluginLogDays: e.PLUGIN_LOG_RETENTION_DAYS,
      loginLogDays: e.LOGIN_LOG_RETENTION_DAYS,
      notificationLogDays: e.NOTIFICATION_LOG_RETENTION_DAYS,
      apiRequestLogDays: e.API_REQUEST_LOG_RETENTION_DAYS,
      systemLogDays: e.SYSTEM_LOG_RETENTION_DAYS,
    },
    metrics: {
      ...(e.METRICS_TOKEN ? { token: e.METRICS_TOKEN } : {}),
      host: e.METRICS_HOST,
      ...(e.METRICS_PORT ? { apiPort: e.METRICS_PORT } : {}),
      ...(e.WORKER_METRICS_PORT ? { workerPort: e.WORKER_METRICS_PORT } : {}),
      ...(e.TEMPORAL_METRICS_BIND_ADDRESS ? { temporalBindAddress: e.TEMPORAL_METRICS_BIND_ADDRESS } : {}),
    },
    lifecycle: {
      renewalLeadDays: e.RENEWAL_INVOICE_LEAD_DAYS,
      reminderDays: e.RENEWAL_REMINDER_DAYS,
      unpaidReminderHours: e.INVOICE_UNPAID_REMINDER_HOURS,
      suspendAfterDays: e.SUSPEND_AFTER_DAYS,
      terminateAfterDays: e.TERMINATE_AFTER_DAYS,
      staleInvoiceDays: e.STALE_INVOICE_CANCEL_DAYS,
    },
    payments: { qrWindowSeconds: e.QRPAY_PAYMENT_WINDOW_SECONDS, qrPollIntervalsSeconds: e.QRPAY_POLL_INTERVALS_SECONDS },
    provisioning: {
      activityTimeoutSeconds: e.PROVISION_ACTIVITY_TIMEOUT_SECONDS,
      maxAttempts: e.PROVISION_MAX_ATTEMPTS,
      hostPollSeconds: e.PROVISION_HOST_POLL_SECONDS,
      hostWaitMinutes: e.PROVISION_HOST_WAIT_MINUTES,
    },
    tracing: tracingEnabled(env),
    testHoldAfterCommitMs: e.NODE_ENV === 'test' ? e.TEST_HOLD_AFTER_COMMIT_MS : 0,
    vnc: { idleTimeoutSeconds: e.VNC_IDLE_TIMEOUT_SECONDS, maxSessionSeconds: e.VNC_MAX_SESSION_SECONDS },
    shutdown: { drainSeconds: e.SHUTDOWN_DRAIN_SECONDS, graceSeconds: e.SHUTDOWN_GRACE_SECONDS },
    storage: {
      driver: e.STORAGE_DRIVER,
      dataDir: e.DATA_DIR,
      s3: {
        ...(e.S3_ENDPOINT ? { endpoint: e.S3_ENDPOINT } : {}),
        region: e.S3_REGION,
        ...(e.S3_BUCKET ? { bucket: e.S3_BUCKET } : {}),
        ...(e.S3_ACCESS_KEY_ID ? { accessKeyId: e.S3_ACCESS_KEY_ID } : {}),
        ...(e.S3_SECRET_ACCESS_KEY ? { secretAccessKey: e.S3_SECRET_ACCESS_KEY } : {}),
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
      },
      assetUrlTtlSeconds: e.ASSET_URL_TTL_SECONDS,
    },
    verification: {
      freeAttempts: e.VERIFICATION_FREE_ATTEMPTS,
      fee: Number(e.VERIFICATION_FEE).toFixed(2),
      attemptSeconds: e.VERIFICATION_ATTEMPT_SECONDS,
      pollIntervalsSeconds: e.VERIFICATION_POLL_INTERVALS_SECONDS,
    },
    access: { emailRequiredFor: e.ACCESS_EMAIL_REQUIRED_FOR, realNameRequiredFor: e.ACCESS_REALNAME_REQUIRED_FOR },
    authCodes: {
      ttlSeconds: e.AUTH_CODE_TTL_SECONDS,
      maxAttempts: e.AUTH_CODE_MAX_ATTEMPTS,
      resendSeconds: e.AUTH_CODE_RESEND_SECONDS,
      maxPerAddressHour: e.AUTH_CODE_MAX_PER_ADDRESS_HOUR,
      maxPerIpHour: e.AUTH_CODE_MAX_PER_IP_HOUR,
    },
  };
}
