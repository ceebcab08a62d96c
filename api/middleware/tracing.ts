import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { routeTemplate } from './operations.js';

const tracer = trace.getTracer('hosting-platform-api');

/**
 * With tracing on (docs/operations.md "Traces"): one span per request named by method and route template
 * (the HTTP instrumentation's server span, when present, is its parent; it does not know Hono's
 * routes). Installed before the request id, which then is this trace's id.
 */
export const traceRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const parent = trace.getActiveSpan();
  await tracer.startActiveSpan(`${c.req.method} request`, { kind: parent ? SpanKind.INTERNAL : SpanKind.SERVER }, async (span) => {
    try {
      await next();
    } finally {
      const route = routeTemplate(c);
      span.updateName(`${c.req.method} ${route}`);
      span.setAttribute('http.request.method', c.req.method);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  });
};
