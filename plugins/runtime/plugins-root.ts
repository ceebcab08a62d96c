import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding `<domain>/<slug>/` plugin directories: `config.pluginsDir` (env
 * `PLUGINS_DIR`) when set, otherwise the folder above this file, so the same code finds
 * `plugins/` in source and `dist/plugins/` in a build.
 */
export function pluginsRoot(config: { pluginsDir?: string | undefined }): string {
  return config.pluginsDir ? resolve(config.pluginsDir) : resolve(fileURLToPath(new URL('..', import.meta.url)));
}
