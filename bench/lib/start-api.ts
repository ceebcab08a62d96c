import { fileURLToPath } from 'node:url';
import { type RunningServer, startServerChild } from './server-child.js';

export type ApiEnv = {
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  poolMax: number;
  /** `CORS_ORIGINS`: the storefront origins the API answers cross-origin requests for. */
  corsOrigins?: string[];
};

/** The real API (`api/main.ts`) as a child process, configured only through its environment. */
export function startApi(env: ApiEnv, options: { signal: AbortSignal; log: (m: string) => void }): Promise<RunningServer> {
  return startServerChild({
    name: 'api',
    entry: fileURLToPath(new URL('../../api/main.ts', import.meta.url)),
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_MAX: String(env.poolMax),
      TEMPORAL_ADDRESS: env.temporalAddress,
      APP_SECRET_KEY: env.secretKey,
      LOG_LEVEL: 'warn',
      ...(env.corsOrigins ? { CORS_ORIGINS: env.corsOrigins.join(',') } : {}),
    },
    readyPath: '/api/health',
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the API, written when it stops; BENCH_API_NODE_ARGS: more node flags (space-separated).
    nodeArgs: [
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ...(process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    ...options,
  });
}
