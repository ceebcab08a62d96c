import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { handleInit, handleQuery, handleUrl, type ApiAnswer } from './api-handlers.js';
import { authenticate } from './auth.js';
import { handleControl } from './control-routes.js';
import { createControl, type CertifySandboxControl } from './control.js';
import { closeServer, listen, parseJsonObject, readBody, sendJson } from '../lib/http-util.js';
import { createState, type CertifyState } from './state.js';
import { handleVerify } from './verify-page.js';

export type CertifySandboxOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  appId?: string;
  appSecret?: string;
  /** Lifetime of the signed verify URL. */
  urlTtlSeconds?: number;
};

export type CertifySandbox = {
  baseUrl: string;
  url: string;
  port: number;
  appId: string;
  appSecret: string;
  control: CertifySandboxControl;
  stop(): Promise<void>;
};

const API: Record<string, (state: CertifyState, body: Record<string, unknown>) => ApiAnswer> = {
  '/certify/init': handleInit,
  '/certify/url': handleUrl,
  '/certify/query': handleQuery,
};

async function route(state: CertifyState, control: CertifySandboxControl, req: IncomingMessage): Promise<ApiAnswer> {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const text = await readBody(req);
  if (url.pathname.startsWith('/__control/')) return handleControl(control, method, url.pathname, parseJsonObject(text) ?? {});
  const verify = /^\/verify\/([^/]+)$/.exec(url.pathname);
  if (verify?.[1] && (method === 'GET' || method === 'POST')) {
    return handleVerify(state, decodeURIComponent(verify[1]), url.searchParams);
  }
  const handler = API[url.pathname];
  if (!handler) return { status: 404, body: { code: 'NOT_FOUND', message: 'no such endpoint' } };
  if (method !== 'POST') return { status: 405, body: { code: 'METHOD_NOT_ALLOWED', message: 'use POST' } };
  const denied = authenticate(state, req, text);
  if (denied) {
    state.counters.rejected += 1;
    return { status: denied.status, body: { code: denied.code, message: denied.message } };
  }
  const body = parseJsonObject(text);
  if (body === null) return { status: 400, body: { code: 'INVALID_JSON', message: 'body must be a JSON object' } };
  return handler(state, body);
}

/** The real-name provider sandbox: signed JSON API, verify page and signed callbacks. */
export async function startCertifySandbox(options: CertifySandboxOptions = {}): Promise<CertifySandbox> {
  const state = createState({
    appId: options.appId ?? 'sandbox-app',
    appSecret: options.appSecret ?? 'sandbox-certify-secret',
    urlTtlSeconds: options.urlTtlSeconds ?? 600,
  });
  const control = createControl(state);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    route(state, control, req).then(
      (answer) => sendJson(res, answer.status, answer.body),
      () => sendJson(res, 500, { code: 'SYSTEM_ERROR', message: 'internal error' }),
    );
  });
  const port = await listen(server, options.port ?? 0);
  state.baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl: state.baseUrl,
    url: state.baseUrl,
    port,
    appId: state.appId,
    appSecret: state.appSecret,
    control,
    async stop() {
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
      for (const controller of state.inflight) controller.abort();
      state.inflight.clear();
      await closeServer(server);
    },
  };
}
