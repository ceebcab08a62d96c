import { describe, expect, it } from 'vitest';
import { currentCancellation, runCancellable, throwIfCancelled, unlessCancelled, WorkCancelledError } from '../../lib/cancellation.js';

describe('the cancellation of the current work', () => {
  it('is absent outside cancellable work: nothing throws and a wait is the wait itself', async () => {
    expect(currentCancellation()).toBeUndefined();
    expect(() => throwIfCancelled()).not.toThrow();
    await expect(unlessCancelled(Promise.resolve(7))).resolves.toBe(7);
  });

  it('reaches code called inside the work, through awaits', async () => {
    const controller = new AbortController();
    const seen = await runCancellable(controller.signal, async () => {
      await Promise.resolve();
      return currentCancellation();
    });
    expect(seen).toBe(controller.signal);
  });

  it('stops a wait as soon as the work is cancelled, and a check between batches after', async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => undefined);
    const outcome = runCancellable(controller.signal, async () => {
      try {
        await unlessCancelled(never);
        return 'waited';
      } catch (err) {
        expect(err).toBeInstanceOf(WorkCancelledError);
        expect(() => throwIfCancelled()).toThrow(WorkCancelledError);
        return (err as Error).message;
      }
    });
    controller.abort(new Error('WORKER_SHUTDOWN'));
    await expect(outcome).resolves.toBe('work cancelled: WORKER_SHUTDOWN');
  });

  it('passes on what the wait answers or throws when it is not cancelled', async () => {
    const controller = new AbortController();
    await expect(runCancellable(controller.signal, () => unlessCancelled(Promise.resolve('done')))).resolves.toBe('done');
    await expect(runCancellable(controller.signal, () => unlessCancelled(Promise.reject(new Error('upstream down'))))).rejects.toThrow('upstream down');
  });

  it('refuses a wait that starts after the cancellation', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(runCancellable(controller.signal, () => unlessCancelled(Promise.resolve(1)))).rejects.toThrow(WorkCancelledError);
  });
});
