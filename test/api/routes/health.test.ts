import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import { serveApp } from '../../../api/server.js';
import { createTemporalGateway } from '../../../lib/temporal.js';
import { createApiClient, expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('health', () => {
  it('reports database and Temporal reachable', async () => {
    const res = await platform.api.get('/api/health');
    expect(res.body).toMatchObject({ code: 0, data: { status: 'ok', database: 'ok', temporal: 'ok' } });
  });

  it('answers probes from one dependency check a second: probes at once share it', async () => {
    let checks = 0;
    const real = platform.deps.temporal;
    const temporal = new Proxy(real, {
      get(target, key) {
        if (key === 'check') return () => ((checks += 1), target.check());
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const app = createApp({ ...platform.deps, temporal });
    const served = await serveApp(app, { hostname: '127.0.0.1', port: 0 });
    try {
      const api = createApiClient(`http://127.0.0.1:${served.port}`);
      const answers = await Promise.all(Array.from({ length: 20 }, () => api.get('/api/health')));
      expect(answers.every((res) => res.body.code === 0 && res.body.data.status === 'ok')).toBe(true);
      // Twenty probes sent together: one check answers them (a loaded machine may spread them over a second boundary).
      expect(checks).toBeGreaterThanOrEqual(1);
      expect(checks).toBeLessThan(5);
    } finally {
      await served.stop();
    }
  });

  it('answers 50300 naming the dependency that is down', async () => {
    const temporal = createTemporalGateway({ address: '127.0.0.1:1', namespace: 'default' });
    const app = createApp({ ...platform.deps, temporal });
    const served = await serveApp(app, { hostname: '127.0.0.1', port: 0 });
    try {
      const api = createApiClient(`http://127.0.0.1:${served.port}`);
      const res = await api.get('/api/health');
      expectError(res, 50300, 503);
      expect(res.body.data).toEqual({ status: 'degraded', database: 'ok', temporal: 'down' });
    } finally {
      await served.stop();
      await temporal.close();
    }
  });
});
