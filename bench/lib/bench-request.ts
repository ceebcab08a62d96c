/** One request of a rotated load: the same list is sent to our side and the bare side (only the host differs). */
export type BenchRequest = {
  method: 'GET' | 'POST';
  /** Path and query string. */
  path: string;
  headers?: Record<string, string>;
  /** A POST's JSON body, sent with `content-type: application/json`. */
  body?: string;
};

/** The bare server's key of a remembered answer: method, target, and a POST's exact body. */
export function bareAnswerKey(method: string, target: string, body?: string): string {
  return body === undefined ? `${method} ${target}` : `${method} ${target}\n${body}`;
}
