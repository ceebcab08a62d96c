import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { executable, goInstall, onPath, userCacheDir } from './go-build.js';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

/** Per-user cache outside the checkout, so every clone on this machine reuses one build. */
export function temporalCacheDir(): string {
  return userCacheDir(`temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

function findExecutable(dir: string): string | null {
  if (!existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && entry.name.startsWith('temporal') && executable(path)) return path;
  }
  return null;
}

/** Without Go: let @temporalio/testing download the dev server binary into our cache. */
async function downloadWithTestingPackage(targetDir: string, log: (m: string) => void): Promise<string | null> {
  const downloadDir = join(targetDir, 'download');
  try {
    log('no Go toolchain: trying the @temporalio/testing download of the Temporal dev server…');
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'cached-download', downloadDir } },
    });
    await env.teardown();
  } catch {
    return null;
  }
  return findExecutable(downloadDir);
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, then PATH, then the per-user cache; builds it
 * into the cache with `go install` when absent.
 */
export async function ensureTemporalCli(log: (m: string) => void = console.log): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!executable(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  const dir = temporalCacheDir();
  const cached = join(dir, 'temporal');
  if (executable(cached)) return cached;
  if (goInstall({ label: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`, packages: [MODULE], targetDir: dir, binaries: ['temporal'], log })) return cached;
  const downloaded = await downloadWithTestingPackage(dir, log);
  if (downloaded) return downloaded;
  throw new Error(
    '找不到 Temporal CLI，且无法构建。请安装 Go (https://go.dev/dl/) 后重试，或设置 TEMPORAL_CLI_PATH 指向 temporal 可执行文件 / ' +
      'Temporal CLI not found and could not be built: install Go, or set TEMPORAL_CLI_PATH to a temporal binary.',
  );
}
