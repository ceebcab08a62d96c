/**
 * Polls until `probe` returns a value, or fails after `attempts` tries. Used to wait for
 * asynchronous effects (a workflow's row) without asserting anything about time.
 */
export async function eventually<T>(probe: () => Promise<T | null | undefined>, attempts = 200, intervalMs = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error('condition not reached');
}
