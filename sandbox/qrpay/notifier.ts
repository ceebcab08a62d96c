import type { NotificationDelivery } from './types.js';

const ATTEMPT_TIMEOUT_MS = 5_000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export type DeliveryObserver = {
  attempt(url: string, acknowledged: boolean): void;
};

/** Only loopback http(s) receivers: the sandbox never posts anywhere else. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && LOOPBACK_HOSTS.has(parsed.hostname);
  } catch {
    return false;
  }
}

/**
 * Posts notifications as forms and retries on a schedule until the receiver answers the plain
 * text `success`. Every timer and request is tracked so that `stop()` leaves nothing behind.
 */
export class Notifier {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly controllers = new Set<AbortController>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly sleepers = new Set<() => void>();
  private stopped = false;

  constructor(private readonly retryDelaysMs: readonly number[]) {}

  /** Waits `ms`; resolves false (early) when the notifier is stopped. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.stopped) {
        resolve(false);
        return;
      }
      const release = (): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        this.sleepers.delete(release);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.sleepers.delete(release);
        resolve(!this.stopped);
      }, ms);
      this.timers.add(timer);
      this.sleepers.add(release);
    });
  }

  /** Tracks a delivery so that `idle()` can wait for it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work)).catch(() => undefined);
    return work;
  }

  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Delivers with retries (`retry`) or exactly once. */
  async deliver(url: string, fields: Record<string, string>, observer: DeliveryObserver, retry: boolean): Promise<NotificationDelivery> {
    const delivery: NotificationDelivery = { url, fields, status: null, body: null, attempts: 0, acknowledged: false };
    const delays = retry ? this.retryDelaysMs : [];
    for (let i = 0; ; i++) {
      if (this.stopped) return delivery;
      delivery.attempts += 1;
      const { status, body } = await this.post(url, fields);
      delivery.status = status;
      delivery.body = body;
      delivery.acknowledged = status !== null && status >= 200 && status < 300 && body !== null && body.trim() === 'success';
      observer.attempt(url, delivery.acknowledged);
      if (delivery.acknowledged) return delivery;
      const delay = delays[i];
      if (delay === undefined) return delivery;
      if (!(await this.sleep(delay))) return delivery;
    }
  }

  private async post(url: string, fields: Record<string, string>): Promise<{ status: number | null; body: string | null }> {
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(() => controller.abort(), ATTEMPT_TIMEOUT_MS);
    this.timers.add(timer);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: new URLSearchParams(fields).toString(),
        signal: controller.signal,
        redirect: 'manual',
      });
      const body = await res.text();
      return { status: res.status, body: body.slice(0, 1000) };
    } catch {
      return { status: null, body: null };
    } finally {
      clearTimeout(timer);
      this.timers.delete(timer);
      this.controllers.delete(controller);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
    for (const release of [...this.sleepers]) release();
  }
}
