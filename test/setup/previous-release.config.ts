import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config.js';

/**
 * Runs the previous release's own test files (`--root` its worktree) on this tree's schema:
 * `test/db/previous-release-schema.test.ts` passes this file with `--config`. The settings are
 * our vitest.config.ts's; only the global setup differs (its template is migrated by this tree).
 */
export default defineConfig({
  ...suite,
  test: { ...suite.test, globalSetup: [fileURLToPath(new URL('./previous-release-global-setup.ts', import.meta.url))] },
});
