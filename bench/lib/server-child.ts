import { type Child, stopChild } from '../../scripts/lib/children.js';
import { freePort } from '../../scripts/lib/ports.js';
import { startMutableNodeChild } from './node-child.js';
import { waitForHttp } from './wait-for-http.js';

/** An HTTP server under test, running in its own process on loopback. */
export type RunningServer = {
  name: string;
  baseUrl: string;
  child: Child;
  stop(): Promise<void>;
};

/**
 * Starts a Node entry (ours from `dist/` when built: ./built.ts; bench code under tsx) with PORT and HOST on a free loopback port and waits until
 * `readyPath` answers 200. An exit before `stop()` is reported, since results would be void.
 */
export async function startServerChild(options: {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  readyPath: string;
  signal: AbortSignal;
  log: (m: string) => void;
  startTimeoutMs?: number;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
}): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopping = false;
  // Once the run is interrupted, the child's logs are noise (see node-child.ts).
  const muted = () => options.signal.aborted;
  const child = startMutableNodeChild(options.name, options.entry, { ...options.env, PORT: String(port), HOST: '127.0.0.1' }, muted, options.nodeArgs);
  void child.exited.then((code) => {
    if (!stopping && !muted()) options.log(`${options.name} exited unexpectedly (code ${code ?? child.process.signalCode})`);
  });
  const stop = async () => {
    stopping = true;
    await stopChild(child);
  };
  try {
    await waitForHttp(`${baseUrl}${options.readyPath}`, child, { timeoutMs: options.startTimeoutMs ?? 180_000, signal: options.signal });
  } catch (err) {
    await stop();
    throw err;
  }
  return { name: options.name, baseUrl, child, stop };
}
