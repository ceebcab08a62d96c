import { describe, expect, it } from 'vitest';
import { AppError, defaultMessages, ErrorCode, httpStatusFor } from '../../lib/errors.js';

describe('error codes', () => {
  it('map to the HTTP status of their range, with the spec overrides', () => {
    expect(httpStatusFor(0)).toBe(200);
    expect(httpStatusFor(40000)).toBe(400);
    expect(httpStatusFor(40001)).toBe(401);
    expect(httpStatusFor(40100)).toBe(401);
    expect(httpStatusFor(40300)).toBe(403);
    expect(httpStatusFor(40301)).toBe(403);
    expect(httpStatusFor(40400)).toBe(404);
    expect(httpStatusFor(40901)).toBe(409);
    expect(httpStatusFor(42200)).toBe(422);
    expect(httpStatusFor(50000)).toBe(500);
    expect(httpStatusFor(50300)).toBe(503);
  });

  it('all carry a Simplified Chinese default message', () => {
    for (const code of Object.values(ErrorCode).filter((c) => c !== 0)) {
      expect(defaultMessages[code], String(code)).toMatch(/\p{Script=Han}/u);
      expect(new AppError(code).message).toBe(defaultMessages[code]);
    }
  });
});
