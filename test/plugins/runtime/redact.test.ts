import { describe, expect, it } from 'vitest';
import { redactSummary } from '../../../plugins/runtime/redact.js';

describe('runtime log summaries', () => {
  it('censors sensitive keys at any depth', () => {
    const text = redactSummary(
      { order: 'A1', password: 'p', nested: { api_key: 'k', sign: 's', deep: { private_key: 'pk', id_number: '110', token: 't', key: 'x' } } },
      [],
    );
    expect(JSON.parse(text)).toEqual({
      order: 'A1',
      password: '[REDACTED]',
      nested: { api_key: '[REDACTED]', sign: '[REDACTED]', deep: { private_key: '[REDACTED]', id_number: '[REDACTED]', token: '[REDACTED]', key: '[REDACTED]' } },
    });
  });

  it('removes every occurrence of a secret value, also inside text and escaped', () => {
    const text = redactSummary({ note: 'called with s3cr"et twice: s3cr"et', error: new Error('bad s3cr"et') }, ['s3cr"et']);
    expect(text).not.toContain('s3cr');
    expect(text.match(/\[REDACTED\]/g)).toHaveLength(3);
  });

  it('truncates long summaries', () => {
    const text = redactSummary({ blob: 'x'.repeat(5000) }, [], 100);
    expect(text).toHaveLength(100 + '…(已截断)'.length);
  });
});
