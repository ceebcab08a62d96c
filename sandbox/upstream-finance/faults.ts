import type { Context } from 'hono';
import { FINANCE_SANDBOX_LOGIN_PATH, SANDBOX_MESSAGES } from './messages.js';
import type { FaultRule, SandboxState } from './state.js';
import type { FaultMode, FaultOptions } from './types.js';

/** Hanging requests give up after this long even when nobody aborts them. */
const MAX_HANG_MS = 120_000;

const HTML_500 = '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Whoops, looks like something went wrong.</h1></body></html>';

export function sleep(ms: number, signals: AbortSignal[]): Promise<void> {
  // A plain timer, not AbortSignal.any([..., AbortSignal.timeout(ms)]): nothing would hold that
  // composite signal, and once it is garbage-collected the sleep never ends (seen at 200 requests).
  return new Promise((resolve) => {
    if (signals.some((s) => s.aborted)) return resolve();
    const done = () => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of signals) s.addEventListener('abort', done, { once: true });
  });
}

/** Sets (or with `count` 0 removes) the rule for one path and phase. */
export function setFaultRule(state: SandboxState, count: number, mode: FaultMode, options: FaultOptions = {}): void {
  const path = options.path ?? null;
  const afterCommit = options.afterCommit ?? false;
  state.faults = state.faults.filter((rule) => rule.path !== path || rule.afterCommit !== afterCommit);
  const remaining = Math.max(0, Math.floor(count));
  if (remaining > 0) state.faults.push({ remaining, mode, path, afterCommit });
}

/** Takes one use of the first rule matching the request (path rules before catch-all ones). */
function takeFault(state: SandboxState, path: string, afterCommit: boolean): FaultRule | null {
  const candidates = state.faults.filter(
    (rule) =>
      rule.remaining > 0 &&
      rule.afterCommit === afterCommit &&
      (rule.path === path || rule.path === null) &&
      // A login cannot present a rejected token.
      !(rule.mode === 'token_rejected' && path === FINANCE_SANDBOX_LOGIN_PATH),
  );
  const rule = candidates.find((r) => r.path !== null) ?? candidates[0];
  if (!rule) return null;
  rule.remaining -= 1;
  if (rule.remaining === 0) state.faults = state.faults.filter((r) => r !== rule);
  return rule;
}

async function faultResponse(state: SandboxState, c: Context, mode: FaultMode): Promise<Response> {
  switch (mode) {
    case 'html500':
      return new Response(HTML_500, { status: 500, headers: { 'content-type': 'text/html; charset=utf-8' } });
    case 'maintenance':
      return Response.json({ status: 503, msg: SANDBOX_MESSAGES.maintenance, data: {} });
    case 'token_rejected':
      state.counters.rejectedTokens += 1;
      return Response.json({ status: 405, msg: SANDBOX_MESSAGES.tokenInvalid, data: {} });
    case 'refused':
      return Response.json({ status: 400, msg: SANDBOX_MESSAGES.refused, data: {} });
    // The product sold out or was withdrawn between a read and this request.
    case 'out_of_stock':
      return Response.json({ status: 400, msg: SANDBOX_MESSAGES.outOfStock, data: {} });
    case 'product_gone':
      return Response.json({ status: 406, msg: SANDBOX_MESSAGES.productGone, data: {} });
    case 'not_found':
      return new Response('<html><body><h1>404 Not Found</h1></body></html>', { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } });
    case 'timeout':
      await sleep(MAX_HANG_MS, [c.req.raw.signal, state.stopped.signal]);
      return new Response('<html><body>504 Gateway Time-out</body></html>', { status: 504, headers: { 'content-type': 'text/html' } });
  }
}

/** Applies latency and a fault due before the handler runs; answers the request when it fails it. */
export async function applyFaultsBefore(state: SandboxState, c: Context): Promise<Response | null> {
  if (state.latencyMs > 0) await sleep(state.latencyMs, [c.req.raw.signal, state.stopped.signal]);
  const rule = takeFault(state, c.req.path, false);
  return rule ? faultResponse(state, c, rule.mode) : null;
}

/** After the handler committed its effect: the fault that replaces its answer, if one is due. */
export async function applyFaultsAfter(state: SandboxState, c: Context): Promise<Response | null> {
  const rule = takeFault(state, c.req.path, true);
  return rule ? faultResponse(state, c, rule.mode) : null;
}
