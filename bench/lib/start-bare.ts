import { fileURLToPath } from 'node:url';
import { type RunningServer, startServerChild } from './server-child.js';

/** The baseline (`bench/bare-server.ts`): node:http and a pg Pool, nothing else; `fixturesPath` adds the in-memory catalogue answers (CORS for `corsOrigins`), `clientStatements` the client invoice list's SQL. */
export function startBare(
  env: { databaseUrl: string; poolMax: number; fixturesPath?: string; corsOrigins?: string[]; clientStatements?: { text: string; values: unknown[] }[] },
  options: { signal: AbortSignal; log: (m: string) => void },
): Promise<RunningServer> {
  return startServerChild({
    name: 'bare',
    entry: fileURLToPath(new URL('../bare-server.ts', import.meta.url)),
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_MAX: String(env.poolMax),
      ...(env.fixturesPath ? { BARE_FIXTURES: env.fixturesPath } : {}),
      ...(env.corsOrigins ? { BARE_CORS_ORIGINS: env.corsOrigins.join(',') } : {}),
      ...(env.clientStatements ? { BARE_CLIENT_STATEMENTS: JSON.stringify(env.clientStatements) } : {}),
    },
    readyPath: '/health',
    ...options,
  });
}
