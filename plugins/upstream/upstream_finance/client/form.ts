/** A form field value; nested objects and arrays become bracket keys (`configoption[12]=34`). */
export type FormInput = { [key: string]: FormField };
export type FormField = string | number | boolean | null | undefined | FormField[] | { [key: string]: FormField };

function append(params: URLSearchParams, key: string, value: FormField): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) append(params, `${key}[]`, item);
    return;
  }
  if (typeof value === 'object') {
    for (const [child, childValue] of Object.entries(value)) append(params, `${key}[${child}]`, childValue);
    return;
  }
  params.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
}

/** `application/x-www-form-urlencoded` body with bracket arrays, as the upstream expects. */
export function encodeForm(input: FormInput): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) append(params, key, value);
  return params.toString();
}
