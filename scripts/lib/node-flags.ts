/**
 * The V8 old-space limits the API and the worker run with in production: `npm start` / `npm run
 * worker` (package.json), the image (Dockerfile), docker-compose.yml, `npm run cluster` and the
 * bench all pass the same flags (test/ops/node-flags.test.ts checks the text of each).
 *
 * Why: V8 sizes its heap from the machine's memory, not from what the process needs, so under a
 * burst of requests it grows the old space long before collecting (an API that lives in ~110 MB
 * peaked at 280–376 MB, the worker at ~470 MB, in the bench's high-rate pairs). With these limits
 * it collects sooner: peaks under 205 MB and 370 MB, throughput unchanged within noise
 * (docs/benchmarks.md, issue #30). A process that truly needs more fails loudly (out of memory,
 * restarted by its supervisor) instead of crowding its neighbours; raise the value together in
 * every place then.
 */
export const API_NODE_FLAGS = ['--max-old-space-size=160'] as const;
export const WORKER_NODE_FLAGS = ['--max-old-space-size=256'] as const;
