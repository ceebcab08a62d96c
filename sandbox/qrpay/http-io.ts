import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 64 * 1024;

export class BodyTooLargeError extends Error {}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > limit) throw new BodyTooLargeError('body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Form fields of the body merged over the query string (gateway clients put either). */
export function formParams(url: URL, body: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of url.searchParams) params[key] = value;
  for (const [key, value] of new URLSearchParams(body)) params[key] = value;
  return params;
}

export function parseJsonObject(body: string): Record<string, unknown> | null {
  if (body.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}
