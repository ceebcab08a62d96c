import { createCipheriv } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../../lib/rfb/byte-reader.js';
import { vncAuthResponse, vncPasswordKey } from '../../../lib/rfb/vnc-auth.js';

type DesCipher = { encrypt(algorithm: unknown, plaintext: Uint8Array): Uint8Array };
type NoVncDes = { DESECBCipher: { importKey(key: number[]): DesCipher } };

/** noVNC's own DES (Acme's, written for VNC: it does the key's bit reversal itself), loaded past the package's `exports`. */
async function noVncDes(): Promise<NoVncDes> {
  const rfb = createRequire(import.meta.url).resolve('@novnc/novnc');
  return (await import(pathToFileURL(join(dirname(rfb), 'crypto', 'des.js')).href)) as NoVncDes;
}

describe('VNC Authentication response', () => {
  it('is single DES: the FIPS 81 test vector through des-ede3-ecb with one key', () => {
    const key = Buffer.from('133457799bbcdff1', 'hex');
    const cipher = createCipheriv('des-ede3-ecb', Buffer.concat([key, key, key]), null);
    cipher.setAutoPadding(false);
    expect(Buffer.concat([cipher.update(Buffer.from('0123456789abcdef', 'hex')), cipher.final()]).toString('hex')).toBe('85e813540f0ab405');
  });

  it('keys DES with the password’s first 8 bytes, each bit-reversed, zero-padded', () => {
    expect(vncPasswordKey('password').toString('hex')).toBe('0e86ceceeef64e26');
    expect(vncPasswordKey('ab').toString('hex')).toBe('8646000000000000');
    expect(vncPasswordKey('123456789')).toEqual(vncPasswordKey('12345678'));
  });

  it('matches a fixed vector and noVNC’s independent DES for any password and challenge', async () => {
    const challenge = Buffer.from([...Array(16).keys()]);
    expect(vncAuthResponse('password', challenge).toString('hex')).toBe('b866924125c8eebb9debc1db61c538e2');
    const { DESECBCipher } = await noVncDes();
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#-_'), maxLength: 12 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), (password, bytes) => {
        const key = [...Buffer.from(password, 'latin1').subarray(0, 8)];
        while (key.length < 8) key.push(0);
        const expected = Buffer.from(DESECBCipher.importKey(key).encrypt({ name: 'DES-ECB' }, bytes));
        expect(vncAuthResponse(password, bytes).toString('hex')).toBe(expected.toString('hex'));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a challenge that is not 16 bytes', () => {
    expect(() => vncAuthResponse('password', Buffer.alloc(8))).toThrow(/16 bytes/);
  });
});

describe('ByteReader', () => {
  it('serves exact reads across chunk boundaries and hands over the rest', async () => {
    const reader = new ByteReader();
    const first = reader.read(5);
    reader.push(Buffer.from('RF'));
    reader.push(Buffer.from('B 003.008\nxyz'));
    expect((await first).toString()).toBe('RFB 0');
    expect((await reader.read(7)).toString()).toBe('03.008\n');
    expect(reader.drain().toString()).toBe('xyz');
    expect(reader.length).toBe(0);
  });

  it('fails a waiting read when the stream ends, and when a peer floods past the limit', async () => {
    const ended = new ByteReader();
    const waiting = ended.read(4);
    ended.fail(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
    const flooded = new ByteReader(8);
    const read = flooded.read(20);
    flooded.push(Buffer.alloc(9));
    await expect(read).rejects.toThrow(/more than 8 unread bytes/);
  });
});
