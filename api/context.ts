import type { IncomingMessage } from 'node:http';
import type { BatchWriter } from '../lib/batch-writer.js';
import type { AuditWriter } from '../domain/logs/admin-audit.js';
import type { RequestLogRecord } from '../domain/logs/request-logs.js';
import type { DomainDeps } from '../domain/deps.js';
import type { TemporalGateway } from '../lib/temporal.js';
import type { AdminPrincipal, ClientPrincipal } from '../domain/auth/principals.js';

/** Everything a request handler may reach: built once per process by `createApp`. */
export type AppDeps = DomainDeps & {
  temporal: TemporalGateway;
  /** The request log (batched) and the admin audit rows written after the answer; absent, nothing is logged. */
  operations?: OperationsWriters;
  /** Stops reporting this process's pool in `db_pool_connections` (on close). */
  unwatchPool?: () => void;
  /** Set when the process is stopping (SIGTERM): `/api/health` answers 503 so a balancer takes it out. */
  lifecycle?: { draining: boolean };
};

export type OperationsWriters = {
  requestLog: BatchWriter<RequestLogRecord>;
  audit: AuditWriter;
};

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    requestId: string;
    admin: AdminPrincipal;
    client: ClientPrincipal;
    /** The envelope code of the answer (set by `ok`, `okCached` and `fail`), for the request log and metrics. */
    responseCode: number;
    /** The public catalogue's answers by URL, answered before the router (api/public-answers.ts). */
    publicAnswers: PublicAnswers;
  };
};

/** A public answer the chain gave from the catalogue cache (`okCached`), remembered by api/public-answers.ts. */
export type RememberedAnswer = {
  /** The route template, for the metrics (`/api/v2/site/products/{productId}`). */
  route: string;
  /** Where the answer's data sits in the catalogue cache (`reads`, or `computed` for a quote), its key, and the value it held then. */
  space: 'reads' | 'computed';
  key: string;
  data: unknown;
  /** The answer's bytes of the current second (`okCached` renews them). */
  bytes: () => Uint8Array;
};

/** What the chain hands the public answers (api/public-answers.ts, made by `createPublicAnswers`): an answer to remember. */
export type PublicAnswers = { remember(incoming: IncomingMessage, entry: RememberedAnswer): void };
