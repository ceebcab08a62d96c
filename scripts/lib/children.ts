import { type ChildProcess, spawn } from 'node:child_process';

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

export async function stopChild(child: Child, timeoutMs = 10_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}
