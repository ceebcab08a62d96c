import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';

export type Child = { name: string; process: ChildProcess; exited: Promise<number | null> };

/** Starts a Node entry under tsx with prefixed output; the promise settles when it exits. */
export function startNodeChild(name: string, entry: string, env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) stream.write(`[${name}] ${line}\n`);
  };
  child.stdout?.on('data', prefix(process.stdout));
  child.stderr?.on('data', prefix(process.stderr));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, process: child, exited };
}

/**
 * Starts a binary with its output kept instead of shown: `tail()` answers its last 4,000
 * characters, for the error of a start that failed (the Temporal server, the Temporal UI).
 */
export function startQuietChild(name: string, command: string, args: string[], options: Omit<SpawnOptions, 'stdio'> = {}): Child & { tail(): string } {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, process: child, exited, tail: () => tail };
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the child has exited. */
export async function stopChild(child: Child, timeoutMs = 10_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}

/**
 * The launchers' stop sequence (`npm run dev`, `npm run cluster`): `add` registers a stop, and
 * `shutdown` runs them in reverse order once (Ctrl-C, SIGTERM or a failure), then exits.
 */
export function launcherStops(log: (m: string) => void) {
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  const shutdown = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      log('停止所有进程 / stopping…');
      for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`stop failed: ${String(err)}`));
    }
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  return { add: (stop: () => Promise<void>) => void stops.push(stop), shutdown, stopping: () => stopping };
}
