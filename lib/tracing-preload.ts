/**
 * `node --import ./dist/lib/tracing-preload.js dist/api/main.js` (and the worker): starts
 * tracing before anything loads `http` or `pg`, when the OTEL_* variables turn it on; otherwise
 * does nothing. ES modules are instrumented through the import-in-the-middle loader hook.
 * It does not listen to SIGTERM itself: the entry's graceful stop drains first and then calls
 * `stopTracing()`, so the spans of the requests and activities finished while stopping are sent.
 */
import { register } from 'node:module';
import { startTracing, tracingEnabled } from './tracing.js';

if (tracingEnabled()) {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const entry = process.argv[1] ?? '';
  await startTracing(entry.includes('worker') ? 'hosting-platform-worker' : 'hosting-platform-api');
}
