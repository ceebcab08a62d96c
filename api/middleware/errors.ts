import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, boundedFieldErrors, defaultMessages, ErrorCode, type FieldErrors } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import { fail } from '../envelope.js';

/** Hono's own refusals (body parsing, media type, size) as our codes; anything else 4xx is a bad request. */
function fromHttpException(err: HTTPException): { code: number; status: number } {
  switch (err.status) {
    case 401:
      return { code: ErrorCode.UNAUTHENTICATED, status: 401 };
    case 413:
      return { code: ErrorCode.PAYLOAD_TOO_LARGE, status: 413 };
    case 415:
      return { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, status: 415 };
    case 400:
      return { code: ErrorCode.MALFORMED_BODY, status: 400 };
    default:
      return { code: ErrorCode.BAD_REQUEST, status: 400 };
  }
}

/** A validation answer lists the first fields only, however many failed (see boundedFieldErrors). */
function boundedData(err: AppError): unknown {
  const errors = (err.data as { errors?: unknown } | null)?.errors;
  if (err.code !== ErrorCode.VALIDATION || errors === null || typeof errors !== 'object') return err.data;
  return { ...(err.data as object), ...boundedFieldErrors(errors as FieldErrors) };
}

/**
 * Every failure leaves as the envelope. Known errors carry their code and Chinese message;
 * anything else is logged with the request id and answered as a bare 50000.
 */
export function handleError(err: Error, c: Context<AppEnv>) {
  if (err instanceof AppError) return fail(c, err.code, err.message, boundedData(err), err.httpStatus);
  if (err instanceof HTTPException && err.status < 500) {
    const { code, status } = fromHttpException(err);
    return fail(c, code, defaultMessages[code] as string, null, status);
  }
  const requestId = c.get('requestId');
  c.var.deps?.logger.error({ err, requestId, method: c.req.method, path: c.req.path }, 'unhandled error');
  return fail(c, ErrorCode.INTERNAL, defaultMessages[ErrorCode.INTERNAL] as string, { request_id: requestId }, 500);
}
