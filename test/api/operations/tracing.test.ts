import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkers } from '../../../activities/worker.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

// A tracer provider of the test's own, exporting to memory; registered before the platform starts.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

let platform: TestPlatform;
let connection: NativeConnection;
let workers: Worker[] = [];
let running: Promise<unknown> = Promise.resolve();

beforeAll(async () => {
  // Any exporter variable turns tracing on; the test's provider is the one spans go to.
  platform = await startTestPlatform({ env: { OTEL_TRACES_EXPORTER: 'console' } });
  connection = await NativeConnection.connect({ address: platform.deps.config.temporal.address });
  // Bundled from the sources, with the Temporal OpenTelemetry workflow interceptors.
  workers = await createWorkers(platform.deps, connection, { workflowsPath: fileURLToPath(new URL('../../../workflows/index.ts', import.meta.url)) });
  running = Promise.all(workers.map((w) => w.run()));
}, 180_000);

afterAll(async () => {
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  await running;
  await connection?.close();
  await platform?.close();
  await provider.shutdown();
});

describe('traces', () => {
  it('one trace runs from the API request through the workflow to its activities, and its id is the request id', async () => {
    const res = await platform.api.post('/api/v2/admin/schedules/logs.retention_cleanup/trigger', { token: await platform.rootToken() });
    expect(res.body.code, res.body.message).toBe(0);
    const requestId = res.headers.get('x-request-id') as string;
    const apiSpan = exporter.getFinishedSpans().find((s) => s.name === 'POST /api/v2/admin/schedules/{key}/trigger');
    expect(apiSpan).toBeDefined();
    const traceId = apiSpan?.spanContext().traceId as string;
    expect(requestId).toBe(traceId);
    const names = await eventually(async () => {
      const inTrace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId).map((s) => s.name);
      return inTrace.some((n) => n.startsWith('RunActivity:')) && inTrace.some((n) => n.startsWith('RunWorkflow:')) ? inTrace : null;
    });
    expect(names).toContain('StartWorkflow:taskRunWorkflow');
    expect(names).toContain('RunWorkflow:taskRunWorkflow');
    expect(names.filter((n) => n.startsWith('RunActivity:')).length).toBeGreaterThan(0);
  });
});
