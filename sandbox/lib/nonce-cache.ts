/** Remembers nonces for the clock window; entries are pruned lazily (no timers). */
export class NonceCache {
  private readonly seen = new Map<string, number>();

  constructor(private readonly ttlMs: number) {}

  /** True when the nonce is new (and records it); false on a replay. */
  accept(nonce: string, nowMs: number): boolean {
    this.prune(nowMs);
    if (this.seen.has(nonce)) return false;
    this.seen.set(nonce, nowMs + this.ttlMs);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }

  private prune(nowMs: number): void {
    for (const [nonce, expiresAt] of this.seen) {
      if (expiresAt <= nowMs) this.seen.delete(nonce);
    }
  }
}
