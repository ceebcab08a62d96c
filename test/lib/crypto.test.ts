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

  it('shows at most a quarter of the characters and never more than four in all', () => {
    for (let length = 1; length <= 80; length++) {
      const value = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3).slice(0, length).padEnd(length, 'Z');
      const shown = maskSecret(value).replace(/\*/g, '').length;
      expect(shown, `length ${length}`).toBeLessThanOrEqual(Math.min(4, Math.floor(length / 4)));
    }
  });

  it('shows a 12-character invite code as 3 of its 12 characters, from both ends', () => {
    expect(maskSecret('INVITE-12345')).toBe('IN*********5');
  });
});
