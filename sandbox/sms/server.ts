import { createServer, type IncomingMessage } from 'node:http';
import { createControl, type SmsSandboxControl } from './control.js';
import { authenticate, handleAccount, handleSend, stringParams, type Answer } from './handlers.js';
import { closeServer, listen, parseJsonObject, readBody, sendJson } from '../lib/http-util.js';
import { createState, type SmsFailureMode, type SmsState } from './state.js';

export type SmsSandboxOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  /** access key id → secret; default `{ 'sandbox-key': 'sandbox-secret' }`. */
  accessKeys?: Record<string, string>;
  /** Approved sign names; any is accepted when omitted. */
  signNames?: string[];
  /** Approved template codes; any is accepted when omitted. */
  templates?: string[];
};

export type SmsSandbox = { baseUrl: string; url: string; port: number; control: SmsSandboxControl; stop(): Promise<void> };

const MODES: SmsFailureMode[] = ['none', 'invalid_phone', 'rate_limited', 'http_500'];

/**
 * `GET /__control/messages`, `DELETE /__control/messages`, `GET /__control/counters`,
 * `POST /__control/failure` `{ mode: none|invalid_phone|rate_limited|http_500, times? }`, `POST /__control/reset`.
 */
function handleControl(control: SmsSandboxControl, method: string, path: string, body: Record<string, unknown>): Answer {
  if (path === '/__control/messages' && method === 'GET') return { status: 200, body: { messages: control.messages() } };
  if (path === '/__control/messages' && method === 'DELETE') {
    control.clearMessages();
    return { status: 200, body: { ok: true } };
  }
  if (path === '/__control/counters' && method === 'GET') return { status: 200, body: { counters: control.counters() } };
  if (path === '/__control/reset' && method === 'POST') {
    control.reset();
    return { status: 200, body: { ok: true } };
  }
  if (path === '/__control/failure' && method === 'POST') {
    const mode = MODES.find((m) => m === body.mode);
    if (!mode) return { status: 400, body: { error: 'mode invalid' } };
    control.setFailure(mode, typeof body.times === 'number' ? body.times : undefined);
    return { status: 200, body: { ok: true } };
  }
  return { status: 404, body: { error: 'not found' } };
}

async function route(state: SmsState, control: SmsSandboxControl, req: IncomingMessage): Promise<Answer> {
  const method = req.method ?? 'GET';
  const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
  const body = parseJsonObject(await readBody(req));
  if (path.startsWith('/__control/')) return handleControl(control, method, path, body ?? {});
  const handler = path === '/v1/sms/send' ? handleSend : path === '/v1/account/query' ? handleAccount : null;
  if (!handler) return { status: 404, body: { code: 'InvalidAction.NotFound', message: 'Specified api is not found.' } };
  if (method !== 'POST') return { status: 405, body: { code: 'MethodNotAllowed', message: 'Use POST.' } };
  state.counters.requests += 1;
  const params = body === null ? null : stringParams(body);
  const answer = params === null ? { status: 400, body: { code: 'InvalidParameter', message: 'body must be a JSON object of strings' } } : (authenticate(state, params) ?? handler(state, params));
  if (answer.status === 200) state.counters.accepted += 1;
  else state.counters.rejected += 1;
  return answer;
}

/** The SMS gateway sandbox: signed `POST /v1/sms/send` and `POST /v1/account/query`; messages kept in memory. */
export async function startSmsSandbox(options: SmsSandboxOptions = {}): Promise<SmsSandbox> {
  const state = createState({
    accessKeys: options.accessKeys ?? { 'sandbox-key': 'sandbox-secret' },
    signNames: options.signNames ?? null,
    templates: options.templates ?? null,
  });
  const control = createControl(state);
  const server = createServer((req, res) => {
    route(state, control, req).then(
      (answer) => sendJson(res, answer.status, answer.body),
      () => sendJson(res, 500, { code: 'InternalError', message: 'internal error' }),
    );
  });
  const port = await listen(server, options.port ?? 0);
  const baseUrl = `http://127.0.0.1:${port}`;
  return { baseUrl, url: baseUrl, port, control, stop: () => closeServer(server) };
}
