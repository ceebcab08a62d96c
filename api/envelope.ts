import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { cutText, ErrorCode } from '../lib/errors.js';
import { LIST_WINDOW } from '../lib/paging.js';
import { unixSeconds } from '../lib/time.js';

export type Envelope<T> = { code: number; message: string; data: T; timestamp: number };

export function envelope<T>(data: T, message = '成功', code: number = ErrorCode.OK): Envelope<T> {
  return { code, message, data, timestamp: unixSeconds() };
}

/** The success answer of every JSON route. */
export function ok<T>(c: Context, data: T, message = '成功') {
  // The request log and metrics read the code from here, not from the answer's headers (api/middleware/operations.ts).
  c.set('responseCode', ErrorCode.OK);
  return c.json(envelope(data, message), 200 as const);
}

/** A message may quote input back (a name, a code): cut, so that no answer grows with the input. */
const MESSAGE_MAX = 300;

export function fail(c: Context, code: number, message: string, data: unknown, status: number) {
  c.set('responseCode', code);
  return c.json(envelope(data, cutText(message, MESSAGE_MAX), code), status as ContentfulStatusCode);
}

export type Page<T> = { list: T[]; total: number; page: number; page_size: number };

/** `total` is at most LIST_WINDOW, whoever counted it (lib/paging.ts). */
export function page<T>(list: T[], total: number, paging: { page: number; page_size: number }): Page<T> {
  return { list, total: Math.min(total, LIST_WINDOW), page: paging.page, page_size: paging.page_size };
}

/** The page of a list held whole in memory (a fixed vocabulary, an upstream's answer): cut here. */
export function pageOfAll<T>(all: readonly T[], paging: { page: number; page_size: number }): Page<T> {
  const start = (paging.page - 1) * paging.page_size;
  return page(all.slice(start, start + paging.page_size), all.length, paging);
}

/** Schemas for the OpenAPI document. */
export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.number().int().openapi({ example: 0 }),
    message: z.string().openapi({ example: '成功' }),
    data,
    timestamp: z.number().int(),
  });
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    list: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
  });
}

export const errorEnvelopeSchema = z
  .object({
    code: z.number().int().openapi({ example: 42200 }),
    message: z.string().openapi({ example: '参数校验失败' }),
    data: z.unknown().nullable(),
    timestamp: z.number().int(),
  })
  .openapi('ErrorEnvelope');
