// `npm run temporal:prepare` (built: `node dist/scripts/prepare-temporal.js`): registers the
// namespace when missing (a plain Temporal server starts without one), our custom search
// attributes and the 30-day retention on a Temporal cluster, as the dev server does for itself.
// It waits for the frontend and the namespace (up to two minutes by default), so it can run as a
// one-shot container beside a server that is still starting.
import { Connection } from '@temporalio/client';
import { createLogger } from '../lib/logger.js';
import { SEARCH_ATTRIBUTE_TYPES } from '../workflows/search-attributes.js';
import { prepareNamespace } from './lib/temporal-server.js';

const RETRY_DELAY_MS = 2_000;

const logger = createLogger(process.env.LOG_LEVEL || 'info', 'temporal-prepare');
const address = process.env.TEMPORAL_ADDRESS;
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
const timeoutSeconds = Number(process.env.TEMPORAL_PREPARE_TIMEOUT_SECONDS || 120);

/** Registers, then reads back: a frontend may answer before its namespace cache has the new attributes. */
async function prepareOnce(target: string): Promise<void> {
  const connection = await Connection.connect({ address: target, connectTimeout: '5s' });
  try {
    await prepareNamespace(connection, namespace);
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(SEARCH_ATTRIBUTE_TYPES).filter((name) => !(name in (listed.customAttributes ?? {})));
    if (missing.length > 0) throw new Error(`search attributes not visible yet: ${missing.join(', ')}`);
  } finally {
    await connection.close();
  }
}

async function prepareWhenReady(target: string, deadline: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await prepareOnce(target);
    } catch (err) {
      // Not reachable yet, or the namespace just registered is not in every cache yet.
      if (Date.now() + RETRY_DELAY_MS > deadline) throw err;
      logger.info({ attempt, reason: err instanceof Error ? err.message : String(err) }, 'temporal not ready, retrying');
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    }
  }
}

if (!address) {
  logger.fatal('missing environment variable TEMPORAL_ADDRESS');
  process.exit(1);
}
if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
  logger.fatal({ value: process.env.TEMPORAL_PREPARE_TIMEOUT_SECONDS }, 'TEMPORAL_PREPARE_TIMEOUT_SECONDS must be a positive number');
  process.exit(1);
}
try {
  await prepareWhenReady(address, Date.now() + timeoutSeconds * 1000);
  logger.info({ address, namespace, searchAttributes: SEARCH_ATTRIBUTE_TYPES }, 'namespace prepared');
} catch (err) {
  logger.fatal({ err, address, namespace, timeoutSeconds }, 'temporal prepare failed');
  process.exit(1);
}
