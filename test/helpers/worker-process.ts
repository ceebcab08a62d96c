import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { TestPlatform } from './platform.js';

export type WorkerProcess = {
  /** Resolves once the worker polls its queues. */
  ready: Promise<void>;
  /** SIGKILL: no graceful shutdown, in-flight activities are abandoned mid-step. */
  kill(): Promise<void>;
  /** SIGTERM and wait: the exit code (null when ended by a signal). */
  stop(): Promise<number | null>;
  /** Whether the process is still running. */
  running(): boolean;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
};

const WORKER_ENTRY = fileURLToPath(new URL('../../activities/worker.ts', import.meta.url));

/**
 * The real worker entry in a child process on the platform's database, queues and schedule
 * prefix, so a test can kill it the hard way and start another, as a crash would in production.
 */
export function startWorkerProcess(platform: TestPlatform, extraEnv: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_ENTRY], {
    env: { ...process.env, ...platform.env, LOG_LEVEL: 'info', WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"worker started"')) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`worker exited early (${code}): ${output.slice(-2000)}`)));
  });
  ready.catch(() => {});
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    return exited;
  };
  return {
    ready,
    kill: async () => void (await signal('SIGKILL')),
    stop: () => signal('SIGTERM'),
    running: () => child.exitCode === null && child.signalCode === null,
    output: () => output,
  };
}
