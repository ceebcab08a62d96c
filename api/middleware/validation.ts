import type { z } from 'zod';
import { type FieldErrors, fieldErrorMap, validationError } from '../../lib/errors.js';

/** zod issues → `data.errors`: field path → array of Chinese messages. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const errors = fieldErrorMap();
  for (const issue of error.issues) {
    const keys =
      issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k].join('.')) : [issue.path.join('.') || '_'];
    for (const key of keys) (errors[key] ??= []).push(issue.message);
  }
  return errors;
}

export function throwValidationError(error: z.ZodError): never {
  throw validationError(fieldErrors(error));
}
