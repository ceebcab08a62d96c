import { describe, expect, it } from 'vitest';
import { closeFrame, FrameWatcher } from '../../../api/console/ws-frames.js';

/** A binary frame of `length` payload bytes, masked (as a client sends) or not. */
function frame(length: number, options: { masked?: boolean; opcode?: number } = {}): Buffer {
  const first = 0x80 | (options.opcode ?? 0x2);
  const mask = options.masked ? 0x80 : 0;
  const head =
    length < 126
      ? Buffer.from([first, mask | length])
      : length < 65536
        ? Buffer.from([first, mask | 126, length >> 8, length & 255])
        : Buffer.concat([Buffer.from([first, mask | 127, 0, 0, 0, 0]), Buffer.from([(length >>> 24) & 255, (length >>> 16) & 255, (length >>> 8) & 255, length & 255])]);
  return Buffer.concat([head, options.masked ? Buffer.from([1, 2, 3, 4]) : Buffer.alloc(0), Buffer.alloc(length, 0x88)]);
}

describe('FrameWatcher', () => {
  it('follows frame boundaries of every length form across arbitrary chunks, without being fooled by payload bytes', () => {
    // Payload bytes of 0x88 look like close-frame headers: only real headers count.
    const stream = Buffer.concat([frame(5), frame(300, { masked: true }), frame(70_000), frame(0)]);
    for (const size of [1, 3, 7, 1000, stream.length]) {
      const watcher = new FrameWatcher();
      for (let offset = 0; offset < stream.length; offset += size) {
        watcher.push(stream.subarray(offset, offset + size));
        const atEnd = offset + size >= stream.length;
        if (atEnd) expect(watcher.atBoundary).toBe(true);
      }
      expect(watcher.closeSeen).toBe(false);
      expect(watcher.bytes).toBe(stream.length);
    }
    const partial = new FrameWatcher();
    partial.push(frame(300).subarray(0, 100));
    expect(partial.atBoundary).toBe(false);
  });

  it('notices a close frame', () => {
    const watcher = new FrameWatcher();
    watcher.push(Buffer.concat([frame(10), closeFrame(1000, '', true)]));
    expect(watcher.closeSeen).toBe(true);
    expect(watcher.atBoundary).toBe(true);
  });
});

describe('closeFrame', () => {
  it('is an unmasked frame with code and UTF-8 reason from a server, masked from a client', () => {
    expect(closeFrame(4001, '会话空闲超时', false)).toEqual(Buffer.concat([Buffer.from([0x88, 20, 0x0f, 0xa1]), Buffer.from('会话空闲超时')]));
    const masked = closeFrame(1000, 'bye', true);
    expect([masked[0], masked[1]]).toEqual([0x88, 0x80 | 5]);
    const key = masked.subarray(2, 6);
    const payload = Buffer.from(masked.subarray(6).map((b, i) => b ^ (key[i % 4] as number)));
    expect(payload).toEqual(Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.from('bye')]));
  });
});
