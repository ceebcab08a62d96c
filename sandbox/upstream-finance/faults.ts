import type { Context } from 'hono';
import { SANDBOX_MESSAGES } from './messages.js';
import type { SandboxState } from './state.js';

/** Hanging requests give up after this long even when nobody aborts them. */
const MAX_HANG_MS = 120_000;

const HTML_500 = '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Whoops, looks like something went wrong.</h1></body></html>';

function sleep(ms: number, signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const signal = AbortSignal.any([...signals, AbortSignal.timeout(ms)]);
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Applies latency and the next injected failure; answers the request when it fails it. */
export async function applyFaults(state: SandboxState, c: Context): Promise<Response | null> {
  const signals = [c.req.raw.signal, state.stopped.signal];
  if (state.latencyMs > 0) await sleep(state.latencyMs, signals);
  if (state.faults.remaining <= 0) return null;
  state.faults.remaining -= 1;
  switch (state.faults.mode) {
    case 'html500':
      return c.html(HTML_500, 500);
    case 'maintenance':
      return c.json({ status: 503, msg: SANDBOX_MESSAGES.maintenance, data: {} }, 200);
    case 'timeout':
      await sleep(MAX_HANG_MS, signals);
      return c.html('<html><body>504 Gateway Time-out</body></html>', 504);
  }
}
