import { Client, Connection, isGrpcServiceError, type WorkflowHandle, WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { Logger } from './logger.js';

/** How long a Temporal call made while answering a request may take before the answer falls back to the database. */
export const REQUEST_DEADLINE_MS = 2_000;

/**
 * How long one Temporal call of background work may take (the outbox relay, the try right after
 * a commit, an activity): longer than a request's, still far below Temporal's own timeouts.
 */
export const BACKGROUND_DEADLINE_MS = 10_000;

/**
 * Temporal did not answer in time or cannot be reached (no connection, deadline passed, server
 * unavailable). A query or update to a workflow whose worker is down ends here too: Temporal
 * waits for a worker that never comes until the deadline.
 */
export class TemporalUnavailableError extends Error {
  override name = 'TemporalUnavailableError';
}

// gRPC status codes that mean "no answer" rather than "this answer": CANCELLED, DEADLINE_EXCEEDED, UNAVAILABLE.
const NO_ANSWER_CODES = new Set([1, 4, 14]);

/** Whether an error from a Temporal call means the call got no answer (as opposed to a refusal). */
export function isTemporalUnavailable(err: unknown): boolean {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof TemporalUnavailableError || current instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
    if (isGrpcServiceError(current) && NO_ANSWER_CODES.has(current.code)) return true;
  }
  return false;
}

/**
 * One lazily opened Temporal connection per process. The API stays up (and says so on
 * /api/health) when Temporal is briefly unreachable, instead of refusing to start.
 */
export type TemporalGateway = {
  client(): Promise<Client>;
  /**
   * Runs `work` with a deadline (default REQUEST_DEADLINE_MS): every gRPC call inside carries
   * it and is cancelled when it passes, so nothing waits for Temporal's own 30 s timeouts.
   * No connection, the deadline, or a server that does not answer become
   * TemporalUnavailableError; Temporal's own answers (not found, update refused…) pass through.
   */
  withDeadline<T>(work: (client: Client) => Promise<T>, ms?: number): Promise<T>;
  check(): Promise<boolean>;
  /**
   * Starts connecting now, in the background (a failure is forgotten: the next call tries
   * again). A process that serves requests calls it at start-up, so the first request's
   * deadline is not spent on the connection handshake.
   */
  warm(): void;
  close(): Promise<void>;
};

export function createTemporalGateway(options: { address: string; namespace: string }): TemporalGateway {
  let pending: Promise<{ connection: Connection; client: Client }> | null = null;
  const open = () => {
    if (!pending) {
      pending = Connection.connect({ address: options.address, connectTimeout: '2s' })
        .then((connection) => ({ connection, client: new Client({ connection, namespace: options.namespace }) }))
        .catch((err: unknown) => {
          pending = null;
          throw err;
        });
    }
    return pending;
  };
  const withDeadline = async <T>(work: (client: Client) => Promise<T>, ms = REQUEST_DEADLINE_MS): Promise<T> => {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Also a guard for anything inside `work` that would not honour the gRPC deadline.
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new TemporalUnavailableError(`Temporal did not answer within ${ms} ms`));
      }, ms);
    });
    expired.catch(() => {});
    try {
      const { client } = await Promise.race([open(), expired]).catch((err: unknown) => {
        throw err instanceof TemporalUnavailableError ? err : new TemporalUnavailableError('Temporal is unreachable', { cause: err });
      });
      const deadline = Date.now() + Math.max(ms - 50, 1);
      return await Promise.race([client.withAbortSignal(abort.signal, () => client.withDeadline(deadline, () => work(client))), expired]);
    } catch (err) {
      if (!(err instanceof TemporalUnavailableError) && (abort.signal.aborted || isTemporalUnavailable(err))) {
        throw new TemporalUnavailableError('Temporal did not answer', { cause: err });
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async client() {
      return (await open()).client;
    },
    withDeadline,
    warm() {
      open().catch(() => {});
    },
    async check() {
      try {
        const res = await withDeadline(async () => (await open()).connection.healthService.check({}));
        return res.status === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (!pending) return;
      const p = pending;
      pending = null;
      await p.then((x) => x.connection.close()).catch(() => {});
    },
  };
}

export type LiveWorkflow<S> = {
  /** Temporal (and, for the query, the workflow's worker) answered within the request deadline. */
  live: boolean;
  /** RUNNING, COMPLETED, …; null when the workflow does not exist or Temporal did not answer. */
  status: string | null;
  /** The query's answer while the workflow runs. */
  state: S | null;
};

/**
 * What Temporal says about a workflow while answering a request, within REQUEST_DEADLINE_MS: its
 * status, and while it runs the answer of `query`. A query needs the workflow's worker: with the
 * worker down, Temporal would wait for it until its own timeout, so the deadline ends it and the
 * answer is `live: false` (with the status, when `describe` answered): the caller answers from the
 * database then, and says so. A workflow that does not exist is a live answer (status null).
 */
export async function readLiveWorkflow<S>(
  gateway: TemporalGateway | undefined,
  workflowId: string,
  query: (handle: WorkflowHandle) => Promise<S>,
  logger: Logger,
): Promise<LiveWorkflow<S>> {
  if (!gateway) return { live: false, status: null, state: null };
  const seen: { status: string | null } = { status: null };
  try {
    return await gateway.withDeadline(async (client) => {
      const handle = client.workflow.getHandle(workflowId);
      seen.status = (await handle.describe()).status.name;
      const state = seen.status === 'RUNNING' ? await query(handle) : null;
      return { live: true, status: seen.status, state };
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { live: true, status: null, state: null };
    if (!isTemporalUnavailable(err)) logger.warn({ err, workflowId }, 'workflow not readable; answered from the database');
    return { live: false, status: seen.status, state: null };
  }
}
