import { expect } from 'vitest';

export const RESPONSE_LIMIT_NORMAL = 100 * 1024;
export const RESPONSE_LIMIT_FIRST_SCREEN = 50 * 1024;
export const RESPONSE_LIMIT_ADMIN_TREE = 70 * 1024;
export const MAX_DEPTH_UNDER_DATA = 3;

/** Containers nested below `data`: `data.list[0].role` is depth 3 (list, item, role). */
export function depthUnder(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.reduce<number>((max, child) => {
    if (child === null || typeof child !== 'object') return max;
    return Math.max(max, 1 + depthUnder(child));
  }, 0);
}

/** Spec "Limits": size target and nesting depth, asserted on every JSON answer in the suite. */
export function assertResponseLimits(rawBody: string, parsed: { data?: unknown }, sizeLimit = RESPONSE_LIMIT_NORMAL): void {
  expect(Buffer.byteLength(rawBody), 'response size').toBeLessThanOrEqual(sizeLimit);
  expect(depthUnder(parsed.data), 'nesting depth under data').toBeLessThanOrEqual(MAX_DEPTH_UNDER_DATA);
}
