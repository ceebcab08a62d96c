/**
 * OpenTelemetry tracing (docs/operations.md "Traces"): off by default; on when the standard variables ask
 * for an exporter (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_TRACES_EXPORTER` other than `none`) and `OTEL_SDK_DISABLED` is not `true`. The SDK reads
 * every other `OTEL_*` variable itself (service name, sampler, headers, protocol).
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export type TracingHandle = { shutdown(): Promise<void> };

// Kept on the global object: the preload and the process's entry share it even if they were to load this module twice.
const ACTIVE = Symbol.for('hosting-platform.tracing');
const holder = globalThis as { [ACTIVE]?: TracingHandle };

/**
 * Flushes and stops the tracing the preload started (nothing when it is off). Called last by the
 * API's and the worker's graceful stop, so the spans of what finished while stopping are sent.
 */
export async function stopTracing(): Promise<void> {
  const handle = holder[ACTIVE];
  delete holder[ACTIVE];
  await handle?.shutdown().catch(() => undefined);
}

/**
 * Starts the Node SDK with the HTTP (server and client: our API, supplier and gateway calls)
 * and pg instrumentations. Must run before `http` and `pg` are loaded: `node --import
 * ./dist/lib/tracing-preload.js` does that. Loaded lazily, so a process without tracing never
 * loads the SDK.
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<TracingHandle | null> {
  if (!tracingEnabled(env)) return null;
  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would be most of the traces.
        ignoreIncomingRequestHook: (req) => req.url === '/api/health' || (req.url ?? '').startsWith('/metrics'),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  const handle = { shutdown: () => sdk.shutdown() };
  holder[ACTIVE] = handle;
  return handle;
}
