import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redactPaths } from '../../lib/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ redact: { paths: redactPaths, censor: '[REDACTED]' } }, stream), lines };
}

describe('log redaction', () => {
  it('hides credentials at the top level and nested two levels down', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        password: 'p-top',
        api_key: 'k-top',
        req: { headers: { authorization: 'Bearer t-header', cookie: 'c-1' } },
        payload: { token: 't-nested', config: { private_key: 'pk-deep', secret: 's-deep' } },
        keep: 'visible-value',
      },
      'call',
    );
    const out = lines.join('');
    for (const secret of ['p-top', 'k-top', 't-header', 'c-1', 't-nested', 'pk-deep', 's-deep']) expect(out).not.toContain(secret);
    expect(out).toContain('visible-value');
    expect(out).toContain('[REDACTED]');
  });
});
