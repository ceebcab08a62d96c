import { createCipheriv, randomBytes } from 'node:crypto';

/** The challenge of RFB security type 2 ("VNC Authentication") is 16 bytes. */
export const VNC_CHALLENGE_LENGTH = 16;

/** One byte with its bits in reverse order (bit 0 ↔ bit 7): how VNC turns a password into a DES key. */
function reverseBits(byte: number): number {
  let out = 0;
  for (let bit = 0; bit < 8; bit += 1) if (byte & (1 << bit)) out |= 1 << (7 - bit);
  return out;
}

/**
 * The DES key of a VNC password: its first 8 bytes (shorter ones padded with zero bytes), each
 * bit-reversed (RFC 6143 §7.2.2 and the errata every implementation follows).
 */
export function vncPasswordKey(password: string): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'utf8').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i += 1) key[i] = reverseBits(key[i] as number);
  return key;
}

/**
 * The response to a VNC Authentication challenge: the 16-byte challenge encrypted with single DES
 * (ECB, no padding) under the password's key. OpenSSL 3 moved single DES into the legacy
 * provider, which Node does not load; three-key triple DES with K1 = K2 = K3 is exactly single
 * DES (encrypt, decrypt and encrypt again under one key), and `des-ede3-ecb` is in the default
 * provider. Checked against the FIPS 81 vector and noVNC's own DES in test/lib/rfb.
 */
export function vncAuthResponse(password: string, challenge: Uint8Array): Buffer {
  if (challenge.length !== VNC_CHALLENGE_LENGTH) throw new Error(`a VNC challenge has ${VNC_CHALLENGE_LENGTH} bytes`);
  const key = vncPasswordKey(password);
  const cipher = createCipheriv('des-ede3-ecb', Buffer.concat([key, key, key]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(challenge), cipher.final()]);
}

/** A fresh random challenge (the server side of VNC Authentication). */
export function vncChallenge(): Buffer {
  return randomBytes(VNC_CHALLENGE_LENGTH);
}
