import { randomBytes } from 'node:crypto';

const OPCODE_CLOSE = 0x8;

/**
 * Follows the frame boundaries of one direction of a websocket connection (RFC 6455 §5.2)
 * without copying anything: only headers are read, payloads are skipped by length. The relay
 * pipes raw frames after the RFB handshake and needs to know whether a side is between frames
 * (a close frame of its own may go in) and whether a side sent a close frame.
 */
export class FrameWatcher {
  private header: number[] = [];
  private headerLength = 2;
  private skip = 0;
  /** Bytes seen in this direction. */
  bytes = 0;
  closeSeen = false;

  get atBoundary(): boolean {
    return this.header.length === 0 && this.skip === 0;
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      this.header.push(chunk[i] as number);
      i += 1;
      if (this.header.length === 2) {
        const length7 = (this.header[1] as number) & 0x7f;
        const masked = ((this.header[1] as number) & 0x80) !== 0;
        this.headerLength = 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + (masked ? 4 : 0);
      }
      if (this.header.length >= 2 && this.header.length === this.headerLength) this.endHeader();
    }
  }

  private endHeader(): void {
    const header = Buffer.from(this.header);
    if ((header.readUInt8(0) & 0x0f) === OPCODE_CLOSE) this.closeSeen = true;
    const length7 = header.readUInt8(1) & 0x7f;
    this.skip = length7 < 126 ? length7 : length7 === 126 ? header.readUInt16BE(2) : header.readUInt32BE(2) * 2 ** 32 + header.readUInt32BE(6);
    this.header = [];
    this.headerLength = 2;
  }
}

/**
 * A close frame with `code` and `reason` (at most 123 bytes of UTF-8): unmasked from a server,
 * masked (a fresh key) from a client.
 */
export function closeFrame(code: number, reason: string, fromClient: boolean): Buffer {
  const text = Buffer.from(reason, 'utf8').subarray(0, 123);
  const payload = Buffer.alloc(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  if (!fromClient) return Buffer.concat([Buffer.from([0x80 | OPCODE_CLOSE, payload.length]), payload]);
  const mask = randomBytes(4);
  for (let i = 0; i < payload.length; i += 1) payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([Buffer.from([0x80 | OPCODE_CLOSE, 0x80 | payload.length]), mask, payload]);
}
