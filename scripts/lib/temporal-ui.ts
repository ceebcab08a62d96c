import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executable, goBuildOwnModule, userCacheDir } from './go-build.js';
import { startQuietChild, stopChild } from './children.js';
import { TemporalBuildError } from './temporal-cluster.js';

/**
 * The Temporal UI (ui-server) release the Temporal CLI v1.5.1 embeds; `ops/temporal-ui/go.mod`
 * requires it and docker-compose.yml pins the `temporalio/ui` image at it (test/ops/compose.test.ts
 * checks all three agree).
 */
export const TEMPORAL_UI_VERSION = 'v2.42.1';
/** Our small main around the UI server (`ops/temporal-ui/`: main.go, go.mod, go.sum). */
export const TEMPORAL_UI_MODULE_DIR = fileURLToPath(new URL('../../ops/temporal-ui', import.meta.url));
const MODULE_FILES = ['main.go', 'go.mod', 'go.sum'];

/** Per-user cache, keyed by the release and our module's files, so a change to them builds again. */
export function temporalUiBinary(): string {
  const hash = createHash('sha256');
  for (const file of MODULE_FILES) hash.update(readFileSync(join(TEMPORAL_UI_MODULE_DIR, file)));
  return join(userCacheDir(`temporal-ui-${TEMPORAL_UI_VERSION}-${hash.digest('hex').slice(0, 12)}`), 'temporal-ui');
}

/** Builds `ops/temporal-ui` once per user (about 30 s once the Temporal CLI's modules are cached). */
export function ensureTemporalUi(log: (m: string) => void = console.log): string {
  const output = temporalUiBinary();
  if (executable(output)) return output;
  if (!goBuildOwnModule({ label: `the Temporal UI ${TEMPORAL_UI_VERSION}`, dir: TEMPORAL_UI_MODULE_DIR, output, log })) {
    throw new TemporalBuildError(
      `无法构建 Temporal UI ${TEMPORAL_UI_VERSION}：请安装 Go (https://go.dev/dl/) 后重试 / Temporal UI ${TEMPORAL_UI_VERSION} could not be built (ops/temporal-ui): install Go and retry.`,
    );
  }
  return output;
}

export type RunningTemporalUi = { url: string; process: ChildProcess; stop(): Promise<void> };

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * The UI on 127.0.0.1:`port` against the frontend at `address`, opening `namespace`. Plain HTTP
 * on the loopback, so its CSRF cookie is sent without TLS (as the dev server's UI does).
 */
export async function startTemporalUi(options: { binary: string; address: string; port: number; namespace: string; timeoutMs?: number }): Promise<RunningTemporalUi> {
  const child = startQuietChild('temporal-ui', options.binary, [
    '-address',
    options.address,
    '-host',
    '127.0.0.1',
    '-port',
    String(options.port),
    '-namespace',
    options.namespace,
    '-insecure-cookie',
  ]);
  const stop = () => stopChild(child, 10_000);
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (!(await answers(url))) {
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Temporal UI did not start on ${url}: ${child.tail().trim()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, process: child.process, stop };
}
