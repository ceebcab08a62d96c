import { timingSafeEqual } from 'node:crypto';
import type { WebSocket } from 'ws';
import { ByteReader } from '../../../lib/rfb/byte-reader.js';
import {
  DEFAULT_PIXEL_FORMAT,
  decodePixelFormat,
  encodePixel,
  encodePixelFormat,
  isSupportedPixelFormat,
  parseVersion,
  type PixelFormat,
  RFB_VERSION_3_8,
  RFB_VERSION_LENGTH,
  SECURITY_RESULT_OK,
  SECURITY_VNC_AUTH,
  securityResultFailure,
} from '../../../lib/rfb/protocol.js';
import { VNC_CHALLENGE_LENGTH, vncAuthResponse, vncChallenge } from '../../../lib/rfb/vnc-auth.js';
import { consolePictureColour } from './picture.js';

export type ConsoleSessionInput = {
  hostId: number;
  password: string;
  width: number;
  height: number;
  /** Called once the client passed VNC Authentication, and when it failed it. */
  onAuthenticated(): void;
  onAuthFailed(): void;
};

/** Client messages after ServerInit (RFC 6143 §7.5). */
const SET_PIXEL_FORMAT = 0;
const SET_ENCODINGS = 2;
const FRAMEBUFFER_UPDATE_REQUEST = 3;
const KEY_EVENT = 4;
const POINTER_EVENT = 5;
const CLIENT_CUT_TEXT = 6;
const MAX_CUT_TEXT = 1024 * 1024;
/**
 * Server messages go out in websocket messages of at most this size, as websockify forwards a
 * VNC server's TCP stream (RFB is a byte stream: message boundaries carry no meaning).
 */
const CHUNK = 64 * 1024;

type Rect = { x: number; y: number; width: number; height: number };

/** A FramebufferUpdate with one raw-encoded rectangle of the picture. */
function framebufferUpdate(format: PixelFormat, rect: Rect, size: { width: number; height: number }): Buffer {
  const bytesPerPixel = format.bitsPerPixel / 8;
  const out = Buffer.alloc(4 + 12 + rect.width * rect.height * bytesPerPixel);
  out.writeUInt8(0, 0);
  out.writeUInt16BE(1, 2);
  out.writeUInt16BE(rect.x, 4);
  out.writeUInt16BE(rect.y, 6);
  out.writeUInt16BE(rect.width, 8);
  out.writeUInt16BE(rect.height, 10);
  out.writeInt32BE(0, 12);
  const pixels = new Map<string, Buffer>();
  let offset = 16;
  for (let y = rect.y; y < rect.y + rect.height; y += 1) {
    for (let x = rect.x; x < rect.x + rect.width; x += 1) {
      const colour = consolePictureColour(x, y, size.width, size.height);
      const key = colour.join(',');
      let pixel = pixels.get(key);
      if (!pixel) {
        pixel = encodePixel(format, colour);
        pixels.set(key, pixel);
      }
      pixel.copy(out, offset);
      offset += bytesPerPixel;
    }
  }
  return out;
}

/**
 * Full-screen updates by pixel format and size, shared by every session: the picture never
 * changes, so a 1024×768 frame is encoded once, not once per connection (the console bench
 * opens dozens at once).
 */
const fullFrames = new Map<string, Buffer>();

function fullFrameFor(format: PixelFormat, size: { width: number; height: number }): Buffer {
  const key = `${size.width}x${size.height}:${encodePixelFormat(format).toString('hex')}`;
  let frame = fullFrames.get(key);
  if (!frame) {
    frame = framebufferUpdate(format, { x: 0, y: 0, ...size }, size);
    if (fullFrames.size > 32) fullFrames.clear();
    fullFrames.set(key, frame);
  }
  return frame;
}

/**
 * One console connection of the sandbox upstream: a real RFB 3.8 server offering only VNC
 * Authentication (a DES challenge answered with the ticket's password), then ServerInit and a
 * picture of four coloured quadrants sent raw on every non-incremental update request (an
 * incremental one waits: the picture never changes). Client messages are parsed and otherwise
 * ignored; anything else closes the connection.
 */
export function serveConsoleSession(socket: WebSocket, input: ConsoleSessionInput): void {
  const reader = new ByteReader();
  socket.on('message', (data: Buffer) => reader.push(data));
  socket.on('close', () => reader.fail(new Error('closed')));
  socket.on('error', () => reader.fail(new Error('socket error')));
  const send = (bytes: Buffer) => {
    if (socket.readyState !== socket.OPEN) return;
    for (let offset = 0; offset < bytes.length; offset += CHUNK) socket.send(bytes.subarray(offset, offset + CHUNK));
  };
  const size = { width: input.width, height: input.height };
  let format = DEFAULT_PIXEL_FORMAT;

  const run = async () => {
    send(Buffer.from(RFB_VERSION_3_8, 'latin1'));
    const version = parseVersion(await reader.read(RFB_VERSION_LENGTH));
    if (!version || version.major !== 3 || version.minor < 8) return socket.close(1002, 'unsupported version');
    send(Buffer.from([1, SECURITY_VNC_AUTH]));
    if ((await reader.readU8()) !== SECURITY_VNC_AUTH) {
      send(securityResultFailure('Security type not offered'));
      return socket.close(1000);
    }
    const challenge = vncChallenge();
    send(challenge);
    const response = await reader.read(VNC_CHALLENGE_LENGTH);
    if (!timingSafeEqual(response, vncAuthResponse(input.password, challenge))) {
      input.onAuthFailed();
      send(securityResultFailure('Authentication failed'));
      return socket.close(1000);
    }
    send(SECURITY_RESULT_OK);
    input.onAuthenticated();
    await reader.readU8(); // ClientInit: shared flag (every session shares the one screen)
    const name = Buffer.from(`sandbox host ${input.hostId}`, 'utf8');
    const init = Buffer.alloc(4);
    init.writeUInt16BE(size.width, 0);
    init.writeUInt16BE(size.height, 2);
    const nameLength = Buffer.alloc(4);
    nameLength.writeUInt32BE(name.length, 0);
    send(Buffer.concat([init, encodePixelFormat(format), nameLength, name]));

    for (;;) {
      const type = await reader.readU8();
      if (type === SET_PIXEL_FORMAT) {
        const body = await reader.read(19);
        const requested = decodePixelFormat(body.subarray(3));
        if (!isSupportedPixelFormat(requested)) return socket.close(1003, 'unsupported pixel format');
        format = requested;
      } else if (type === SET_ENCODINGS) {
        await reader.read(1);
        await reader.read(4 * (await reader.readU16()));
      } else if (type === FRAMEBUFFER_UPDATE_REQUEST) {
        const body = await reader.read(9);
        if (body.readUInt8(0) !== 0) continue;
        const x = Math.min(body.readUInt16BE(1), size.width);
        const y = Math.min(body.readUInt16BE(3), size.height);
        const rect = { x, y, width: Math.min(body.readUInt16BE(5), size.width - x), height: Math.min(body.readUInt16BE(7), size.height - y) };
        const whole = rect.x === 0 && rect.y === 0 && rect.width === size.width && rect.height === size.height;
        if (whole) {
          send(fullFrameFor(format, size));
        } else {
          send(framebufferUpdate(format, rect, size));
        }
      } else if (type === KEY_EVENT) {
        await reader.read(7);
      } else if (type === POINTER_EVENT) {
        await reader.read(5);
      } else if (type === CLIENT_CUT_TEXT) {
        await reader.read(3);
        const length = await reader.readU32();
        if (length > MAX_CUT_TEXT) return socket.close(1009, 'cut text too long');
        await reader.read(length);
      } else {
        return socket.close(1002, `unknown message type ${type}`);
      }
    }
  };
  run().catch(() => socket.terminate());
}
