import { spawn } from 'node:child_process';
import type { Child } from '../../scripts/lib/children.js';
import { entryArgs } from './built.js';

/**
 * Like scripts/lib/children.ts `startNodeChild` (output prefixed with the name; our API and
 * worker from `dist/` when built, see ./built.ts), but output can be muted: after an interrupt, PostgreSQL stops under the load and the
 * children's error logs would only bury the bench's own messages.
 */
export function startMutableNodeChild(name: string, entry: string, env: NodeJS.ProcessEnv, muted: () => boolean, nodeArgs: string[] = []): Child {
  const child = spawn(process.execPath, [...nodeArgs, ...entryArgs(entry)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
    if (muted()) return;
    for (const line of chunk.toString().split('\n')) if (line.trim()) stream.write(`[${name}] ${line}\n`);
  };
  child.stdout?.on('data', prefix(process.stdout));
  child.stderr?.on('data', prefix(process.stderr));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, process: child, exited };
}
