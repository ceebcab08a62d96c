import { invalidInput } from '../client/upstream-error.js';
import type { FormInput } from '../client/form.js';
import { asInt, asString, type UnknownRecord } from '../read.js';
import { requireRecord } from './payload.js';

/** Who we buy for: created once per local service and reused on every retry. */
export type DownstreamReference = { token: string; url: string; serviceId: number };

const TOKEN = /^[A-Za-z0-9]{32}$/;

/** `payload.downstream` = `{ token (32 letters/digits), url (http/https), service_id }`. */
export function readDownstream(payload: UnknownRecord): DownstreamReference {
  const downstream = requireRecord(payload, 'downstream');
  const token = asString(downstream['token']) ?? '';
  if (!TOKEN.test(token)) throw invalidInput('参数错误：downstream.token 必须为 32 位字母或数字');
  const url = asString(downstream['url'])?.trim() ?? '';
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  if ((protocol !== 'http:' && protocol !== 'https:') || url.length > 255) throw invalidInput('参数错误：downstream.url 必须为 HTTP(S) 地址');
  const serviceId = asInt(downstream['service_id']);
  if (serviceId === null || serviceId <= 0) throw invalidInput('参数错误：downstream.service_id 必须为正整数');
  return { token, url, serviceId };
}

/** The form fields every cart call carries (sandbox and upstream field names). */
export function downstreamForm(reference: DownstreamReference): FormInput {
  return { downstream_token: reference.token, downstream_url: reference.url, downstream_id: reference.serviceId };
}
