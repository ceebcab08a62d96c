import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { installChineseValidationMessages } from '../../lib/zod-zh.js';

describe('validation messages', () => {
  beforeAll(() => installChineseValidationMessages());

  it('are Chinese with no English type names', () => {
    const schema = z.object({
      name: z.string().min(3),
      count: z.number().int().max(5),
      kind: z.enum(['a', 'b']),
      email: z.email(),
      missing: z.string(),
      list: z.array(z.number()).min(1),
    });
    const result = schema.safeParse({ name: 'x', count: 7.5, kind: 'c', email: 'bad', list: [] });
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((i) => i.message) ?? [];
    expect(messages.length).toBe(6);
    for (const m of messages) {
      expect(m).toMatch(/\p{Script=Han}/u);
      expect(m).not.toMatch(/string|number|int|undefined|expected/i);
    }
    expect(messages).toContain('此字段为必填项');
  });
});
