// Build step: tsc emits only JavaScript, but plugins are read at run time from
// dist/plugins/<domain>/<slug>/ (manifest.json and any other non-TypeScript file).
import { cp } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../plugins', import.meta.url));
const to = fileURLToPath(new URL('../dist/plugins', import.meta.url));

await cp(from, to, { recursive: true, filter: (src) => !/\.[cm]?ts$/.test(src) });
console.log(`plugin assets copied to ${to}`);
