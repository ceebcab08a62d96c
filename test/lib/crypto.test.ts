import { describe, expect, it } from 'vitest';
import { createSecretBox, maskSecret } from '../../lib/crypto.js';

describe('secret box', () => {
  const box = createSecretBox('k'.repeat(40));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('smtp-password-123');
    expect(sealed).not.toContain('smtp-password-123');
    expect(box.open(sealed)).toBe('smtp-password-123');
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses tampered ciphertext and another key', () => {
    const sealed = box.seal('value');
    const tampered = `${sealed.slice(0, -4)}AAAA`;
    expect(() => box.open(tampered)).toThrow();
    expect(() => createSecretBox('x'.repeat(40)).open(sealed)).toThrow();
  });
});

describe('maskSecret', () => {
  it('never equals the original and hides most of it', () => {
    for (const value of ['a', 'ab', 'abcd', 'secret-value', 'x'.repeat(64)]) {
      const masked = maskSecret(value);
      expect(masked).not.toBe(value);
      expect(masked.replace(/\*/g, '').length).toBeLessThanOrEqual(Math.floor(value.length / 2));
    }
  });
});
