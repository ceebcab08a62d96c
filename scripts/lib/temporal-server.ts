import { type ChildProcess, spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_TYPES } from '../../workflows/search-attributes.js';

export type RunningTemporal = { address: string; uiUrl: string | null; stop(): Promise<void> };

const RETENTION_DAYS = 30;
/** gRPC status NOT_FOUND (describeNamespace of a namespace not registered yet). */
const GRPC_NOT_FOUND = 5;
const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** Connects once the frontend at `address` answers health checks (the child is the server process). */
export async function connectWhenReady(address: string, child: ChildProcess, timeoutMs: number): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`temporal server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: '2s' });
      const health = await connection.healthService.check({});
      if (health.status === 1) return connection;
      await connection.close();
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`temporal server not ready at ${address}: ${String(lastError)}`);
}

/** A plain server (not the dev server, not auto-setup) starts without any namespace. */
async function ensureNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if ((err as { code?: number }).code !== GRPC_NOT_FOUND) throw err;
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(`${RETENTION_DAYS} days`) });
  }
}

/**
 * Waits until a query naming every custom search attribute is accepted. A real server maps a
 * namespace's attributes through a cache each service refreshes on its own (about every 10 s):
 * right after they are added, a schedule or a workflow start naming one is refused ("no mapping
 * defined for search attribute"), which would fail the first worker's schedule set-up.
 */
async function searchAttributesUsable(connection: Connection, namespace: string, timeoutMs = 90_000): Promise<void> {
  const query = Object.entries(SEARCH_ATTRIBUTE_TYPES)
    .map(([name, type]) => (type === 'Int' ? `${name} = 0` : `${name} = 'probe'`))
    .join(' AND ');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.countWorkflowExecutions({ namespace, query });
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The dev server registers search attributes only when its database is created; on later
 * starts (or against any cluster) the namespace and the missing attributes are added through
 * the operator API.
 */
export async function prepareNamespace(connection: Connection, namespace: string): Promise<void> {
  await ensureNamespace(connection, namespace);
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const existing = new Set(Object.keys(listed.customAttributes ?? {}));
  const missing = Object.entries(SEARCH_ATTRIBUTE_TYPES).filter(([name]) => !existing.has(name));
  if (missing.length > 0) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map(([name, type]) => [
          name,
          type === 'Int' ? IndexedValueType.INDEXED_VALUE_TYPE_INT : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        ]),
      ),
    });
  }
  await searchAttributesUsable(connection, namespace);
  const described = await connection.workflowService.describeNamespace({ namespace });
  const seconds = Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? 0);
  if (seconds < RETENTION_DAYS * 86_400) {
    await connection.workflowService.updateNamespace({
      namespace,
      config: { workflowExecutionRetentionTtl: msToTs(`${RETENTION_DAYS} days`) },
    });
  }
}

/** Starts `temporal server start-dev` and waits until its frontend answers health checks. */
export async function startTemporalDevServer(options: {
  cliPath: string;
  port: number;
  uiPort: number | null;
  dbFile: string | null;
  namespace: string;
  log?: (m: string) => void;
}): Promise<RunningTemporal> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'error'];
  args.push('--dynamic-config-value', 'frontend.enableServerVersionCheck=false');
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_TYPES)) args.push('--search-attribute', `${name}=${type}`);

  const child = spawn(options.cliPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' },
  });
  const forward = (chunk: Buffer) => options.log?.(chunk.toString().trimEnd());
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);

  const address = `127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await waitForExit(child);
  };
  try {
    const connection = await connectWhenReady(address, child, 120_000);
    await prepareNamespace(connection, options.namespace);
    await connection.close();
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : null, stop };
}
