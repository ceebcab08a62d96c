/** Expectation for any success envelope: `{code: 0, …}`. */
export function expectEnvelopeOk(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('code' in body)) return 'no envelope';
  return body.code === 0 ? null : `code ${String(body.code)}`;
}
