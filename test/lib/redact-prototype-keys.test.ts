import { describe, expect, it } from 'vitest';
import { redactValue } from '../../lib/redact.js';
import { redactJson, redactSummary } from '../../plugins/runtime/redact.js';

/** A parsed JSON object with `__proto__` as an own key, as JSON.parse makes it from a request body. */
const hostile = JSON.parse('{"__proto__":{"password":"p-secret","note":"kept"},"constructor":{"token":"t-secret"},"a":1}') as Record<string, unknown>;

describe('redaction of keys named like Object.prototype members', () => {
  it('keeps them as keys (never as the prototype) and censors what they hold', () => {
    for (const out of [redactValue(hostile), redactJson(hostile, [])]) {
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.keys(out as object)).toEqual(['__proto__', 'constructor', 'a']);
      const text = JSON.stringify(out);
      expect(text).toContain('"__proto__":{"password":"[REDACTED]","note":"kept"}');
      expect(text).not.toMatch(/p-secret|t-secret/);
    }
    const summary = redactSummary(hostile, []);
    expect(summary).toContain('"__proto__"');
    expect(summary).not.toMatch(/p-secret|t-secret/);
  });
});
