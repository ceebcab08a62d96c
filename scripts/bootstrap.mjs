#!/usr/bin/env node
// Entry of `npm run dev`, `npm run cluster`, `npm test` and `npm run bench`. Plain JavaScript on purpose: it runs
// before dependencies exist, installs them when missing or stale, then hands over.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = process.argv[2];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, extraEnv = {}) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extraEnv } });
  if (res.error) throw res.error;
  return res.status ?? 1;
}

// The lockfile's hash as of the last install this script made: dependencies are reinstalled
// exactly when node_modules is missing or the lockfile changed since.
const stampFile = join(root, 'node_modules', '.bootstrap-lock-hash');
const lockHash = () => createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');

function dependenciesStale() {
  return !existsSync(stampFile) || readFileSync(stampFile, 'utf8').trim() !== lockHash();
}

if (dependenciesStale()) {
  console.log('[bootstrap] 安装依赖 / installing dependencies (npm ci)…');
  if (run(npm, ['ci', '--no-audit', '--no-fund']) !== 0) process.exit(1);
  writeFileSync(stampFile, `${lockHash()}\n`);
}

/**
 * Runs a long-lived step (dev, cluster, bench, the tests) and answers with its exit status. The
 * step runs in a process group of its own, and SIGINT, SIGTERM and SIGHUP reaching this process
 * (Ctrl-C in the terminal, or a signal to this process alone) are passed on to it exactly once
 * each; the step stops its children in order (a second Ctrl-C still forces it) and this process
 * exits with it. Before, a signal to this process alone left the API, the worker and PostgreSQL
 * running, and the next start failed on PostgreSQL's lock file.
 */
function runForwardingSignals(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: process.env, detached: true });
    const forward = (signal) => () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const handlers = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => [signal, forward(signal)]);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      resolve(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1) : 1));
    });
  });
}

const bin = (name) => join(root, 'node_modules', '.bin', name);
const tsx = ['--import', 'tsx'];

switch (command) {
  case 'dev':
    process.exit(await runForwardingSignals(process.execPath, [...tsx, 'scripts/dev.ts']));
    break;
  case 'cluster':
    process.exit(await runForwardingSignals(process.execPath, [...tsx, 'scripts/cluster.ts']));
    break;
  case 'bench':
    process.exit(await runForwardingSignals(process.execPath, [...tsx, 'bench/run.ts', ...process.argv.slice(3)]));
    break;
  case 'test': {
    const steps = [
      ['类型检查 / typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
      ['代码检查 / lint', bin('eslint'), ['.', '--max-warnings=0']],
      ['测试 / tests', bin('vitest'), ['run', ...process.argv.slice(3)]],
    ];
    for (const [label, cmd, args] of steps) {
      console.log(`\n[test] ${label}`);
      const status = await runForwardingSignals(cmd, args);
      if (status !== 0) process.exit(status);
    }
    break;
  }
  default:
    console.error(`usage: node scripts/bootstrap.mjs dev|cluster|test|bench (got ${command})`);
    process.exit(2);
}
