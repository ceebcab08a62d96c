/** A decoded form value: bracket keys (`a[1]=x`, `b[]=y`) nest into objects and arrays. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };

function splitKey(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const segments = [key.slice(0, open)];
  const pattern = /\[([^\]]*)\]/g;
  for (const match of key.slice(open).matchAll(pattern)) segments.push(match[1] ?? '');
  return segments;
}

function assign(target: Record<string, FormValue>, segments: string[], value: string): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const next = rest[0];
  if (next === '' && rest.length === 1) {
    const existing = target[head];
    target[head] = Array.isArray(existing) ? [...existing, value] : [value];
    return;
  }
  const existing = target[head];
  const child: Record<string, FormValue> =
    existing !== undefined && typeof existing === 'object' && !Array.isArray(existing) ? existing : {};
  target[head] = child;
  assign(child, rest, value);
}

/** Parses `application/x-www-form-urlencoded` text with bracket arrays. */
export function parseFormBody(text: string): Record<string, FormValue> {
  const result: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(text)) assign(result, splitKey(key), value);
  return result;
}

function toFormValue(value: unknown): FormValue {
  if (Array.isArray(value)) return value.map(toFormValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, FormValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toFormValue(v);
    return out;
  }
  return value === null || value === undefined ? '' : String(value);
}

/** Reads a request body sent as a form (what the real clients send) or as JSON. */
export async function readRequestBody(request: Request): Promise<Record<string, FormValue>> {
  if (request.method === 'GET' || request.method === 'HEAD') return {};
  const text = await request.text();
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text);
      const value = toFormValue(parsed);
      return typeof value === 'object' && !Array.isArray(value) ? value : {};
    } catch {
      return {};
    }
  }
  return parseFormBody(text);
}

export function formString(body: Record<string, FormValue>, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}
