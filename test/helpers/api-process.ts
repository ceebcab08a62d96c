import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestPlatform } from './platform.js';

export type ApiProcess = {
  /** Resolves with the base URL once the API listens. */
  ready: Promise<string>;
  /** SIGTERM (the graceful stop of api/main.ts) and the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no graceful stop, nothing in the process's memory survives (a crash). */
  kill(): Promise<void>;
  /** Sends a signal without waiting for the exit (a second SIGTERM, for example). */
  signal(name: NodeJS.Signals): void;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
};

const API_ENTRY = fileURLToPath(new URL('../../api/main.ts', import.meta.url));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * The real API entry (`api/main.ts`) in a child process on the platform's database and queues,
 * configured only by its environment, as in production.
 */
export function startApiProcess(platform: TestPlatform, extraEnv: Record<string, string> = {}): ApiProcess {
  let exitCode: Promise<number | null> = Promise.resolve(null);
  let child: ReturnType<typeof spawn> | null = null;
  let output = '';
  const ready = freePort().then(
    (port) =>
      new Promise<string>((resolve, reject) => {
        const proc = spawn(process.execPath, ['--import', 'tsx', API_ENTRY], {
          env: { ...process.env, ...platform.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...extraEnv },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child = proc;
        exitCode = new Promise((r) => proc.once('exit', (code) => r(code)));
        proc.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('"api listening"')) resolve(`http://127.0.0.1:${port}`);
        });
        proc.stderr?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        proc.once('exit', (code) => reject(new Error(`api exited early (${code}): ${output.slice(-2000)}`)));
      }),
  );
  ready.catch(() => {});
  return {
    ready,
    async stop() {
      await ready.catch(() => {});
      const proc = child as ReturnType<typeof spawn> | null;
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exitCode;
    },
    signal(name) {
      const proc = child as ReturnType<typeof spawn> | null;
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill(name);
    },
    output: () => output,
    async kill() {
      await ready.catch(() => {});
      const proc = child as ReturnType<typeof spawn> | null;
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exitCode;
    },
  };
}
