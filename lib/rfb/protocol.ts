import type { ByteReader } from './byte-reader.js';
import { VNC_CHALLENGE_LENGTH, vncAuthResponse } from './vnc-auth.js';

/** The protocol version both sides of our relay speak (RFC 6143). */
export const RFB_VERSION_3_8 = 'RFB 003.008\n';
export const RFB_VERSION_LENGTH = 12;

export const SECURITY_NONE = 1;
export const SECURITY_VNC_AUTH = 2;

export const SECURITY_RESULT_OK = Buffer.from([0, 0, 0, 0]);

/** Reason strings (refusals, failed security results) longer than this are a broken peer. */
const MAX_REASON_LENGTH = 4096;

export type RfbFailureKind = 'protocol' | 'refused' | 'unsupported' | 'auth_failed';

/** A handshake that cannot go on; `message` is for logs (the peer's reason, never a credential). */
export class RfbHandshakeError extends Error {
  override name = 'RfbHandshakeError';
  constructor(
    readonly kind: RfbFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** `u32 length` + UTF-8 text: how RFB carries a failure reason. */
export function encodeReason(reason: string): Buffer {
  const text = Buffer.from(reason, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(text.length, 0);
  return Buffer.concat([length, text]);
}

/** A failed SecurityResult with its reason (RFB 3.8). */
export function securityResultFailure(reason: string): Buffer {
  return Buffer.concat([Buffer.from([0, 0, 0, 1]), encodeReason(reason)]);
}

export async function readReason(reader: ByteReader): Promise<string> {
  const length = await reader.readU32();
  if (length > MAX_REASON_LENGTH) throw new RfbHandshakeError('protocol', `reason of ${length} bytes`);
  return (await reader.read(length)).toString('utf8');
}

/** The 3.x minor version of a ProtocolVersion message, or null when it is not one. */
export function parseVersion(bytes: Buffer): { major: number; minor: number } | null {
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(bytes.toString('latin1'));
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : null;
}

/**
 * The client side of an RFB 3.8 handshake, up to a successful SecurityResult: the relay towards
 * the upstream console (VNC Authentication with the ticket's password, or None when the server
 * offers only that) and the test client towards the relay (None). Throws `RfbHandshakeError`.
 * What the server sends after the SecurityResult stays in `reader`.
 */
export async function rfbClientHandshake(reader: ByteReader, send: (bytes: Buffer) => void, options: { password?: string }): Promise<{ securityType: number }> {
  const version = parseVersion(await reader.read(RFB_VERSION_LENGTH));
  if (!version || version.major !== 3) throw new RfbHandshakeError('protocol', 'not an RFB server');
  if (version.minor < 8) throw new RfbHandshakeError('unsupported', `server speaks RFB 3.${version.minor}`);
  send(Buffer.from(RFB_VERSION_3_8, 'latin1'));
  const count = await reader.readU8();
  if (count === 0) throw new RfbHandshakeError('refused', `server refused the connection: ${await readReason(reader)}`);
  const offered = [...(await reader.read(count))];
  const usePassword = options.password !== undefined && options.password !== '';
  const type = usePassword && offered.includes(SECURITY_VNC_AUTH) ? SECURITY_VNC_AUTH : offered.includes(SECURITY_NONE) ? SECURITY_NONE : null;
  if (type === null) throw new RfbHandshakeError('unsupported', `no usable security type among [${offered.join(', ')}]`);
  send(Buffer.from([type]));
  if (type === SECURITY_VNC_AUTH) {
    const challenge = await reader.read(VNC_CHALLENGE_LENGTH);
    send(vncAuthResponse(options.password as string, challenge));
  }
  const result = await reader.readU32();
  if (result !== 0) throw new RfbHandshakeError('auth_failed', `security result ${result}: ${await readReason(reader)}`);
  return { securityType: type };
}

/** A true-colour pixel format (RFC 6143 §7.4): what the server sends and what a client may ask for. */
export type PixelFormat = {
  bitsPerPixel: number;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
};

/** 32 bits per pixel, little-endian BGRX: the usual server format. */
export const DEFAULT_PIXEL_FORMAT: PixelFormat = {
  bitsPerPixel: 32,
  depth: 24,
  bigEndian: false,
  trueColour: true,
  redMax: 255,
  greenMax: 255,
  blueMax: 255,
  redShift: 16,
  greenShift: 8,
  blueShift: 0,
};

export function encodePixelFormat(format: PixelFormat): Buffer {
  const out = Buffer.alloc(16);
  out.writeUInt8(format.bitsPerPixel, 0);
  out.writeUInt8(format.depth, 1);
  out.writeUInt8(format.bigEndian ? 1 : 0, 2);
  out.writeUInt8(format.trueColour ? 1 : 0, 3);
  out.writeUInt16BE(format.redMax, 4);
  out.writeUInt16BE(format.greenMax, 6);
  out.writeUInt16BE(format.blueMax, 8);
  out.writeUInt8(format.redShift, 10);
  out.writeUInt8(format.greenShift, 11);
  out.writeUInt8(format.blueShift, 12);
  return out;
}

export function decodePixelFormat(bytes: Buffer): PixelFormat {
  return {
    bitsPerPixel: bytes.readUInt8(0),
    depth: bytes.readUInt8(1),
    bigEndian: bytes.readUInt8(2) !== 0,
    trueColour: bytes.readUInt8(3) !== 0,
    redMax: bytes.readUInt16BE(4),
    greenMax: bytes.readUInt16BE(6),
    blueMax: bytes.readUInt16BE(8),
    redShift: bytes.readUInt8(10),
    greenShift: bytes.readUInt8(11),
    blueShift: bytes.readUInt8(12),
  };
}

/** One pixel's bytes in `format` (8, 16 or 32 bits per pixel, true colour). */
export function encodePixel(format: PixelFormat, [r, g, b]: readonly [number, number, number]): Buffer {
  const scale = (value: number, max: number) => Math.round((value * max) / 255);
  const value = ((scale(r, format.redMax) << format.redShift) | (scale(g, format.greenMax) << format.greenShift) | (scale(b, format.blueMax) << format.blueShift)) >>> 0;
  const size = format.bitsPerPixel / 8;
  const out = Buffer.alloc(size);
  if (size === 1) out.writeUInt8(value & 0xff, 0);
  else if (size === 2 && format.bigEndian) out.writeUInt16BE(value & 0xffff, 0);
  else if (size === 2) out.writeUInt16LE(value & 0xffff, 0);
  else if (format.bigEndian) out.writeUInt32BE(value, 0);
  else out.writeUInt32LE(value, 0);
  return out;
}

/** The colour of one pixel's bytes in `format`, scaled back to 0..255. */
export function decodePixel(format: PixelFormat, bytes: Buffer, offset = 0): [number, number, number] {
  const size = format.bitsPerPixel / 8;
  const value = size === 1 ? bytes.readUInt8(offset) : size === 2 ? (format.bigEndian ? bytes.readUInt16BE(offset) : bytes.readUInt16LE(offset)) : format.bigEndian ? bytes.readUInt32BE(offset) : bytes.readUInt32LE(offset);
  const channel = (shift: number, max: number) => (max === 0 ? 0 : Math.round((((value >>> shift) & max) * 255) / max));
  return [channel(format.redShift, format.redMax), channel(format.greenShift, format.greenMax), channel(format.blueShift, format.blueMax)];
}

/** Pixel formats a peer may ask for: true colour with 8, 16 or 32 bits per pixel and channels that fit. */
export function isSupportedPixelFormat(format: PixelFormat): boolean {
  if (!format.trueColour || ![8, 16, 32].includes(format.bitsPerPixel)) return false;
  const fits = (max: number, shift: number) => max > 0 && max <= 255 && shift + Math.log2(max + 1) <= format.bitsPerPixel;
  return fits(format.redMax, format.redShift) && fits(format.greenMax, format.greenShift) && fits(format.blueMax, format.blueShift);
}
