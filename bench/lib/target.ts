/** One side of a pair: a request on loopback (GET, or POST with a JSON body) and what a correct answer looks like. */
export type Target = {
  name: string;
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Returns a problem description, or null when the parsed JSON body is what we expect. */
  expect?: (body: unknown) => string | null;
};

/**
 * One request before the load: a target that answers wrongly (401, empty page, …) would
 * otherwise be measured at full speed and compared as if it did the real work.
 */
export async function verifyTarget(target: Target): Promise<void> {
  const res = await fetch(target.url, {
    method: target.method ?? 'GET',
    headers: { ...(target.body === undefined ? {} : { 'content-type': 'application/json' }), ...target.headers },
    ...(target.body === undefined ? {} : { body: target.body }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${target.name}: ${target.url} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  if (!target.expect) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${target.name}: ${target.url} did not answer JSON: ${text.slice(0, 300)}`);
  }
  const problem = target.expect(body);
  if (problem) throw new Error(`${target.name}: ${target.url} answered unexpectedly: ${problem}`);
}
