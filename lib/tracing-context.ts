import { trace } from '@opentelemetry/api';

/**
 * The trace id of the span active here, when tracing is on and a span is recording (the HTTP
 * server span of the request); otherwise undefined. The API uses it as the request id, so the
 * id in logs, audit rows and `X-Request-Id` finds the trace.
 */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, traceFlags } = span.spanContext();
  // Bit 0 = sampled: an unsampled trace is never exported, so its id would lead nowhere.
  return traceFlags & 1 && /^[0-9a-f]{32}$/.test(traceId) && !/^0+$/.test(traceId) ? traceId : undefined;
}
