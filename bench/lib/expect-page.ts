/** Expectation for a `{code, data: {list, total}}` page envelope with a known size and total. */
export function expectPage(options: { size: number; total: number }): (body: unknown) => string | null {
  return (body) => {
    if (typeof body !== 'object' || body === null || !('code' in body) || !('data' in body)) return 'no envelope';
    if (body.code !== 0) return `code ${String(body.code)}`;
    const data = body.data;
    if (typeof data !== 'object' || data === null || !('list' in data) || !('total' in data)) return 'no page in data';
    if (!Array.isArray(data.list) || data.list.length !== options.size) return `list has ${Array.isArray(data.list) ? data.list.length : 'no'} items, want ${options.size}`;
    if (data.total !== options.total) return `total ${String(data.total)}, want ${options.total}`;
    return null;
  };
}
