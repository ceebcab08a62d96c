import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';

/** The Temporal SDK's workflow interceptor module (traces workflows; bundled with the workflow code). */
export const WORKFLOW_TRACING_MODULE = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js');

/**
 * The span processor of the tracer provider registered in this process (the Node SDK's, or a
 * test's): workflow spans, made inside the workflow sandbox and handed out through a sink, join
 * the same pipeline as the activity, HTTP and pg spans.
 */
function registeredSpanProcessor(): SpanProcessor | null {
  const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const delegate = (provider.getDelegate?.() ?? provider) as { getActiveSpanProcessor?: () => SpanProcessor };
  return delegate.getActiveSpanProcessor?.() ?? null;
}

/**
 * Worker options that carry a trace from the starter (the API's client interceptor puts the
 * context in the workflow's headers) through the workflow and its activities: the activity
 * interceptor, the workflow interceptor module (when the worker bundles its workflows; a
 * prebuilt bundle includes it when built with TRACE_WORKFLOWS=1) and the workflow span sink.
 * Empty when tracing is off, so a worker without tracing runs exactly as before.
 */
export function workerTracingOptions(enabled: boolean, bundlesItself: boolean): Partial<WorkerOptions> {
  if (!enabled) return {};
  const processor = registeredSpanProcessor();
  const forward: SpanProcessor = processor ?? {
    onStart: () => {},
    onEnd: (_span: ReadableSpan) => {},
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })],
      ...(bundlesItself ? { workflowModules: [WORKFLOW_TRACING_MODULE] } : {}),
    },
    sinks: { exporter: makeWorkflowExporter(forward, new Resource({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'hosting-platform-worker' })) },
  };
}
