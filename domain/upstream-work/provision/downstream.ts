import { randomInt } from 'node:crypto';

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';

function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** The 32-character token of a downstream reference (letters and digits, as the upstream expects). */
export function newDownstreamToken(): string {
  return randomAlnum(32);
}

/** A root password the upstream accepts (8–32 letters and digits) with every character class. */
export function newServicePassword(): string {
  const classes = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnpqrstuvwxyz', '23456789'];
  const chars = [...randomAlnum(13), ...classes.map((c) => c[randomInt(c.length)] as string)];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}

export type DownstreamReference = { token: string; url: string; service_id: number };
