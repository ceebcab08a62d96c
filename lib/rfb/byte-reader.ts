/**
 * Reads exact byte counts from a stream that arrives in chunks of any size (websocket messages,
 * TCP segments): the RFB handshake and message parsing wait for "the next n bytes". One read at
 * a time. Unconsumed bytes are capped (`limit`): a peer that floods before it is read from fails
 * the reader instead of growing memory.
 */
export class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pending: { length: number; resolve: (bytes: Buffer) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(private readonly limit = 1024 * 1024) {}

  /** Bytes received and not read yet. */
  get length(): number {
    return this.buffered;
  }

  push(chunk: Buffer): void {
    if (this.failure) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered > this.limit) {
      this.fail(new Error(`more than ${this.limit} unread bytes`));
      return;
    }
    const pending = this.pending;
    if (pending && this.buffered >= pending.length) {
      this.pending = null;
      pending.resolve(this.take(pending.length));
    }
  }

  /** The stream ended or broke: a waiting read (and every later one that cannot be served) rejects. */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }

  read(length: number): Promise<Buffer> {
    if (this.pending) return Promise.reject(new Error('one read at a time'));
    if (this.buffered >= length) return Promise.resolve(this.take(length));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { length, resolve, reject };
    });
  }

  async readU8(): Promise<number> {
    return (await this.read(1)).readUInt8(0);
  }

  async readU16(): Promise<number> {
    return (await this.read(2)).readUInt16BE(0);
  }

  async readU32(): Promise<number> {
    return (await this.read(4)).readUInt32BE(0);
  }

  /** Everything received and not read yet (what follows a handshake, to be relayed as is). */
  drain(): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [];
    this.buffered = 0;
    return all;
  }

  private take(length: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= length) {
      if (first.length === length) this.chunks.shift();
      else this.chunks[0] = first.subarray(length);
      this.buffered -= length;
      return first.subarray(0, length);
    }
    const all = Buffer.concat(this.chunks);
    this.chunks = all.length > length ? [all.subarray(length)] : [];
    this.buffered -= length;
    return all.subarray(0, length);
  }
}
