import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, defaultMessages, ErrorCode } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import { fail } from '../envelope.js';

/**
 * Every failure leaves as the envelope. Known errors carry their code and Chinese message;
 * anything else is logged with the request id and answered as a bare 50000.
 */
export function handleError(err: Error, c: Context<AppEnv>) {
  if (err instanceof AppError) return fail(c, err.code, err.message, err.data, err.httpStatus);
  if (err instanceof HTTPException) {
    if (err.status === 400) return fail(c, ErrorCode.MALFORMED_BODY, defaultMessages[ErrorCode.MALFORMED_BODY] as string, null, 400);
    if (err.status === 401) return fail(c, ErrorCode.UNAUTHENTICATED, defaultMessages[ErrorCode.UNAUTHENTICATED] as string, null, 401);
    if (err.status === 413) return fail(c, ErrorCode.BAD_REQUEST, '请求体过大', null, 400);
  }
  const requestId = c.get('requestId');
  c.var.deps?.logger.error({ err, requestId, method: c.req.method, path: c.req.path }, 'unhandled error');
  return fail(c, ErrorCode.INTERNAL, defaultMessages[ErrorCode.INTERNAL] as string, { request_id: requestId }, 500);
}
