import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldErrors } from '../../../api/middleware/validation.js';
import { boundedFieldErrors } from '../../../lib/errors.js';

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** A parsed JSON body with the key as an own property (as JSON.parse makes it, even for `__proto__`). */
const bodyWith = (key: string) => JSON.parse(`{${JSON.stringify(key)}:"x"}`) as unknown;

describe('the field error map', () => {
  it('names a field called like a member of Object.prototype, unknown or invalid', () => {
    for (const key of PROTOTYPE_KEYS) {
      const unknown = z.strictObject({ title: z.string().optional() }).safeParse(bodyWith(key));
      expect(unknown.success).toBe(false);
      const errors = fieldErrors(unknown.error as z.ZodError);
      expect(Object.keys(errors), key).toEqual([key]);
      expect(JSON.parse(JSON.stringify(boundedFieldErrors(errors)))).toEqual({ errors: JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(errors[key])}}`), error_count: 1 });
    }
    const invalid = z.object({ constructor: z.number(), toString: z.number() }).safeParse({ constructor: 'x', toString: 'y' });
    expect(Object.keys(fieldErrors(invalid.error as z.ZodError)).sort()).toEqual(['constructor', 'toString']);
  });
});
