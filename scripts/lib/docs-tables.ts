// The tables of docs/ written from the code: the error codes (lib/errors.ts) and the environment
// variables (lib/config.ts). `npm run docs:generate` writes them between their markers;
// test/docs/generated-tables.test.ts fails while a committed page differs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configVariables, envSchema } from '../../lib/config.js';
import { defaultMessages, ErrorCode, errorMeanings, httpStatusFor } from '../../lib/errors.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One generated block: the page it lives in, its marker name, and how it is written. */
export type GeneratedBlock = { page: string; name: string; render: () => string };

export const GENERATED_BLOCKS: GeneratedBlock[] = [
  { page: 'docs/errors.md', name: 'error codes from lib/errors.ts', render: renderErrorTable },
  { page: 'docs/configuration.md', name: 'variables from lib/config.ts', render: renderConfigTable },
];

/** A markdown table cell: pipes escaped, line breaks folded. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

export function renderErrorTable(): string {
  const names = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));
  const codes = [...names.keys()].sort((a, b) => a - b);
  const rows = codes.map((code) => {
    const meaning = errorMeanings[code as keyof typeof errorMeanings];
    const message = code === 0 ? '—' : (defaultMessages[code] ?? '—');
    return `| ${code} | ${httpStatusFor(code)} | \`${names.get(code)}\` | ${cell(message)} | ${cell(meaning)} |`;
  });
  return ['| code | HTTP | name | default message | when |', '|---|---|---|---|---|', ...rows].join('\n');
}

type ZodInternals = { _zod: { def: { type: string; defaultValue?: unknown; in?: ZodInternals; innerType?: ZodInternals } } };

/** The schema's default of one variable (before any transform), or undefined. */
function schemaDefault(schema: ZodInternals): unknown {
  const def = schema._zod.def;
  if (def.type === 'default') return def.defaultValue;
  if (def.type === 'pipe' && def.in) return schemaDefault(def.in);
  if (def.type === 'optional' && def.innerType) return schemaDefault(def.innerType);
  return undefined;
}

function formatDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (value === '') return 'empty';
  return `\`${String(value)}\``;
}

export function renderConfigTable(): string {
  const shape = envSchema.shape as unknown as Record<string, ZodInternals>;
  const rows = Object.entries(configVariables).map(([name, doc]) => {
    const schema = shape[name];
    const fallback = doc.default ?? formatDefault(schema ? schemaDefault(schema) : undefined);
    return `| \`${name}\` | ${cell(fallback)} | ${cell(doc.description)} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

const begin = (name: string) => `<!-- generated: ${name} (npm run docs:generate; do not edit by hand) -->`;
const end = (name: string) => `<!-- /generated: ${name} -->`;

/** `text` with the block between its markers replaced by `body`; throws when the markers are missing. */
export function replaceBlock(text: string, name: string, body: string): string {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`markers of "${name}" not found: ${begin(name)} … ${end(name)}`);
  return `${text.slice(0, from)}${begin(name)}\n${body}\n${text.slice(to)}`;
}

/** Every page holding a generated block, as it is and as the script would write it. */
export function generatedPages(root = REPO_ROOT): { page: string; current: string; expected: string }[] {
  const pages = [...new Set(GENERATED_BLOCKS.map((b) => b.page))];
  return pages.map((page) => {
    const current = readFileSync(`${root}${page}`, 'utf8');
    const expected = GENERATED_BLOCKS.filter((b) => b.page === page).reduce((text, b) => replaceBlock(text, b.name, b.render()), current);
    return { page, current, expected };
  });
}
