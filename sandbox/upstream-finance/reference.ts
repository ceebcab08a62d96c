import { formString, type FormValue } from './body.js';
import { SANDBOX_MESSAGES } from './messages.js';
import type { SandboxAnswer } from './types.js';

/** The downstream reference a reseller sends with cart calls: who it buys for, once. */
export type DownstreamReference = { token: string; url: string; id: string };

const TOKEN = /^[A-Za-z0-9]{32}$/;

/** `downstream_token` (32 letters or digits), `downstream_url` (http(s)), `downstream_id`; or the answer refusing them. */
export function readDownstreamReference(body: Record<string, FormValue>): DownstreamReference | SandboxAnswer {
  const token = formString(body, 'downstream_token')?.trim() ?? '';
  const url = formString(body, 'downstream_url')?.trim() ?? '';
  const id = formString(body, 'downstream_id')?.trim() ?? '';
  if (!token || !url || !id) return { status: 406, msg: SANDBOX_MESSAGES.referenceMissing, data: {} };
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  if (!TOKEN.test(token) || (protocol !== 'http:' && protocol !== 'https:') || !/^\d{1,18}$/.test(id)) {
    return { status: 406, msg: SANDBOX_MESSAGES.referenceInvalid, data: {} };
  }
  return { token, url, id };
}

export function isAnswer(value: DownstreamReference | SandboxAnswer): value is SandboxAnswer {
  return 'status' in value;
}

export function cartKey(username: string, token: string): string {
  return `${username}\n${token}`;
}
