// `npm run docs:generate`: writes the generated tables of docs/ (error codes from lib/errors.ts,
// environment variables from lib/config.ts) between their markers.
// `npm test` (test/docs/generated-tables.test.ts) fails while they are stale.
import { writeFileSync } from 'node:fs';
import { generatedPages, REPO_ROOT } from './lib/docs-tables.js';

for (const { page, current, expected } of generatedPages()) {
  if (current === expected) {
    console.log(`${page}: up to date`);
    continue;
  }
  writeFileSync(`${REPO_ROOT}${page}`, expected);
  console.log(`${page}: regenerated`);
}
