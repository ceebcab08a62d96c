import { join } from 'node:path';
import { executable, goBuildInModule, onPath, userCacheDir } from './go-build.js';

/** Docker Compose v2, for `docker compose config` where no Docker is installed (test/ops/compose.test.ts). */
export const COMPOSE_VERSION = 'v2.40.3';

/**
 * `docker compose` (v2) on PATH, else the standalone binary built once from the Go module proxy
 * into the per-user cache; null when it can be neither found nor built. Compose's go.mod has
 * exclude directives, so `go install pkg@version` refuses it: it is built inside its module.
 */
export function ensureComposeCli(log: (m: string) => void = console.log): string | null {
  const onPathCompose = onPath('docker-compose');
  if (onPathCompose) return onPathCompose;
  const output = join(userCacheDir(`compose-${COMPOSE_VERSION}`), 'docker-compose');
  if (executable(output)) return output;
  const built = goBuildInModule({ label: `Docker Compose ${COMPOSE_VERSION}`, module: 'github.com/docker/compose/v2', version: COMPOSE_VERSION, pkg: './cmd', output, log });
  return built ? output : null;
}
