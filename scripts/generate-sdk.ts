// `npm run sdk:generate`: writes sdk/openapi.json and sdk/schema.d.ts from the routes.
// `npm test` (test/api/openapi-document.test.ts) fails while they are stale.
import { writeFile } from 'node:fs/promises';
import { renderSdk, SDK_DIR, SDK_FILES } from './lib/sdk.js';

const files = await renderSdk();
for (const name of SDK_FILES) await writeFile(`${SDK_DIR}${name}`, files[name]);
console.log(`sdk/ regenerated: ${SDK_FILES.join(', ')}`);
