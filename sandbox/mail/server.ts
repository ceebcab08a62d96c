import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createControl, type MailSandboxControl } from './control.js';
import { closeServer, listen, parseJsonObject, readBody, sendJson } from '../lib/http-util.js';
import { createSmtpSink } from './smtp.js';
import { createState } from './state.js';

export type MailSandboxOptions = {
  /** HTTP port; 0 (default) picks a free one. */
  port?: number;
  /** SMTP port; 0 (default) picks a free one. */
  smtpPort?: number;
  /** user → password accepted by AUTH; default `{ sandbox: 'sandbox-pass' }`. */
  users?: Record<string, string>;
};

export type MailSandbox = {
  baseUrl: string;
  url: string;
  port: number;
  smtpHost: string;
  smtpPort: number;
  control: MailSandboxControl;
  stop(): Promise<void>;
};

type Answer = { status: number; body: Record<string, unknown> };

/**
 * `GET /messages`, `DELETE /messages`, `GET /__control/counters`,
 * `POST /__control/reject-auth` `{ users?: string[] }`, `POST /__control/allow-auth`,
 * `POST /__control/reject-next-message` `{ count? }`, `POST /__control/reset`.
 */
function route(control: MailSandboxControl, method: string, path: string, body: Record<string, unknown>): Answer {
  if (path === '/messages' && method === 'GET') return { status: 200, body: { messages: control.messages() } };
  if (path === '/__control/counters' && method === 'GET') return { status: 200, body: { counters: control.counters() } };
  const users = Array.isArray(body.users) ? body.users.filter((u): u is string => typeof u === 'string') : undefined;
  const commands: Record<string, () => void> = {
    'DELETE /messages': () => control.clearMessages(),
    'POST /__control/reject-auth': () => control.rejectAuth(users),
    'POST /__control/allow-auth': () => control.allowAuth(),
    'POST /__control/reject-next-message': () => control.rejectNextMessage(typeof body.count === 'number' ? body.count : 1),
    'POST /__control/reset': () => control.reset(),
  };
  const command = commands[`${method} ${path}`];
  if (!command) return { status: 404, body: { error: 'not found' } };
  command();
  return { status: 200, body: { ok: true } };
}

async function handle(control: MailSandboxControl, req: IncomingMessage): Promise<Answer> {
  const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
  return route(control, req.method ?? 'GET', path, parseJsonObject(await readBody(req)) ?? {});
}

/** SMTP sink plus an HTTP side to read messages and flip failure switches. */
export async function startMailSandbox(options: MailSandboxOptions = {}): Promise<MailSandbox> {
  const state = createState(options.users ?? { sandbox: 'sandbox-pass' });
  const control = createControl(state);
  const smtp = createSmtpSink(state);
  const smtpPort = await new Promise<number>((resolve, reject) => {
    smtp.once('error', reject);
    const server = smtp.listen(options.smtpPort ?? 0, '127.0.0.1', () => {
      smtp.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  const http = createServer((req, res) => {
    handle(control, req).then(
      (a) => sendJson(res, a.status, a.body),
      () => sendJson(res, 500, { error: 'internal error' }),
    );
  });
  let port: number;
  try {
    port = await listen(http, options.port ?? 0);
  } catch (err) {
    await new Promise<void>((resolve) => smtp.close(resolve));
    throw err;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    url: baseUrl,
    port,
    smtpHost: '127.0.0.1',
    smtpPort,
    control,
    async stop() {
      await Promise.all([closeServer(http), new Promise<void>((resolve) => smtp.close(resolve))]);
    },
  };
}
