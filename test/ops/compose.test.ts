import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureComposeCli } from '../../scripts/lib/compose-cli.js';
import { executable, onPath } from '../../scripts/lib/go-build.js';
import { loadConfig } from '../../lib/config.js';
import { embeddedPostgresMajor } from '../../scripts/lib/postgres.js';
import { TEMPORAL_SERVER_VERSION, temporalServerCacheDir } from '../../scripts/lib/temporal-cluster.js';
import { TEMPORAL_UI_MODULE_DIR, TEMPORAL_UI_VERSION } from '../../scripts/lib/temporal-ui.js';

/**
 * docker-compose.yml is never started on these machines (no Docker engine), so it is checked by
 * `docker compose config` (Compose v2 built once from the Go module proxy) and against the repo:
 * every image `npm run cluster` also runs at the version it runs (the Temporal server and UI it
 * builds, its PostgreSQL major, its HAProxy), the shared Temporal and HAProxy configuration
 * files, production mode, two API replicas and two workers.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type ComposeService = {
  image?: string;
  command?: string[] | null;
  entrypoint?: string[] | null;
  volumes?: Array<{ type: string; source: string; target: string }>;
  deploy?: { replicas?: number };
  ports?: Array<{ target: number; published?: string | number }>;
  environment?: Record<string, string | null>;
};
type ComposeModel = { services: Record<string, ComposeService> };

let compose: string | null = null;
let model: ComposeModel;

beforeAll(() => {
  compose = ensureComposeCli((m) => console.log(`[compose test] ${m}`));
  if (!compose) {
    console.log('[compose test] skipped: Docker Compose v2 could not be built (no Go toolchain or module proxy)');
    return;
  }
  const res = spawnSync(compose, ['-f', join(ROOT, 'docker-compose.yml'), 'config', '--format', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, POSTGRES_PASSWORD: 'compose-check', APP_SECRET_KEY: 'x'.repeat(43) },
  });
  expect(res.status, res.stderr).toBe(0);
  model = JSON.parse(res.stdout) as ComposeModel;
}, 30 * 60_000);

/** `haproxy` on PATH or in /usr/sbin (what `npm run cluster` runs), or null. */
const haproxyBinary = () => onPath('haproxy') ?? (existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : null);

const service = (name: string): ComposeService => {
  const found = model.services[name];
  expect(found, `service ${name}`).toBeDefined();
  return found as ComposeService;
};

/** Host paths of a service's bind mounts, relative to the repository. */
const mounted = (name: string) => (service(name).volumes ?? []).filter((v) => v.type === 'bind').map((v) => v.source);

describe('docker-compose.yml', () => {
  it('is valid and uses no auto-setup image', (ctx) => {
    if (!compose) return ctx.skip();
    const images = Object.values(model.services).map((s) => s.image ?? '');
    expect(images.filter((i) => i.includes('auto-setup'))).toEqual([]);
  });

  it('runs the plain Temporal server at the release npm run cluster builds, with the repository configuration', (ctx) => {
    if (!compose) return ctx.skip();
    const version = TEMPORAL_SERVER_VERSION.replace(/^v/, '');
    expect(service('temporal').image).toBe(`temporalio/server:${version}`);
    expect(service('temporal-schema').image).toBe(`temporalio/admin-tools:${version}`);
    const [configDir] = mounted('temporal');
    expect(configDir).toBe(join(ROOT, 'ops', 'temporal'));
    expect(existsSync(join(configDir as string, 'production.yaml'))).toBe(true);
    expect(existsSync(join(configDir as string, 'dynamicconfig.yaml'))).toBe(true);
    expect((service('temporal').command ?? []).join(' ')).toContain('--config ops --env production');
    // The schemas come from temporal-sql-tool only (setup-schema, then update-schema).
    const schemaJob = (service('temporal-schema').command ?? []).join(' ');
    expect(schemaJob).toContain('setup-schema -v 0.0');
    expect(schemaJob).toContain('update-schema -d');
  });

  it('runs the Temporal UI, PostgreSQL and HAProxy at the versions npm run cluster runs', async (ctx) => {
    if (!compose) return ctx.skip();
    // The UI: the ui-server release ops/temporal-ui requires (the one npm run cluster builds).
    expect(readFileSync(join(TEMPORAL_UI_MODULE_DIR, 'go.mod'), 'utf8')).toMatch(new RegExp(`^require github\\.com/temporalio/ui-server/v2 ${TEMPORAL_UI_VERSION.replace(/\./g, '\\.')}$`, 'm'));
    expect(service('temporal-ui').image).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION.replace(/^v/, '')}`);
    // Published where the admin API's links point by default (TEMPORAL_UI_URL's default).
    const uiUrl = loadConfig({ DATABASE_URL: 'postgres://x/y', TEMPORAL_ADDRESS: 'temporal:7233', APP_SECRET_KEY: 'x'.repeat(43) }).temporal.uiUrl;
    expect(String(service('temporal-ui').ports?.[0]?.published)).toBe(new URL(uiUrl).port);
    // PostgreSQL: the major of the embedded distribution the cluster starts.
    expect(service('postgres').image).toBe(`postgres:${await embeddedPostgresMajor()}`);
    // HAProxy: the branch (major.minor) of the OS package the cluster runs, where it is installed.
    const haproxy = haproxyBinary();
    if (haproxy) {
      const branch = /HAProxy version (\d+\.\d+)/.exec(spawnSync(haproxy, ['-v'], { encoding: 'utf8' }).stdout)?.[1];
      expect(service('balancer').image).toBe(`haproxy:${branch}`);
    }
  });

  it('runs the APIs and workers as production, with private upstreams refused unless a staging deployment allows them', (ctx) => {
    if (!compose) return ctx.skip();
    for (const name of ['api', 'worker', 'migrate']) {
      expect(service(name).environment?.NODE_ENV, name).toBe('production');
      expect(service(name).environment?.ALLOW_PRIVATE_UPSTREAMS, name).toBe('false');
    }
  });

  it('puts two API replicas behind the HAProxy configuration npm run cluster uses, and two workers', (ctx) => {
    if (!compose) return ctx.skip();
    expect(service('api').deploy?.replicas).toBe(2);
    expect(service('worker').deploy?.replicas).toBe(2);
    const [haproxyDir] = mounted('balancer');
    expect(haproxyDir).toBe(join(ROOT, 'ops', 'haproxy'));
    const command = (service('balancer').command ?? []).join(' ');
    for (const file of ['haproxy.cfg', 'compose-backend.cfg']) {
      expect(command).toContain(file);
      expect(existsSync(join(haproxyDir as string, file)), file).toBe(true);
    }
    // The APIs believe X-Forwarded-For from the balancer only.
    expect(service('api').environment?.TRUST_PROXY).toBe('172.28.0.10');
  });

  it('has a balancer configuration HAProxy accepts (where HAProxy is installed)', (ctx) => {
    const haproxy = haproxyBinary();
    if (!haproxy) return ctx.skip();
    const res = spawnSync(haproxy, ['-c', '-q', '-f', 'ops/haproxy/haproxy.cfg', '-f', 'ops/haproxy/compose-backend.cfg'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LB_BIND: ':8080' },
    });
    expect(res.status, res.stderr).toBe(0);
  });

  it('has a Temporal configuration the server renders (where the server is built)', (ctx) => {
    const server = join(temporalServerCacheDir(), 'server');
    if (!executable(server)) return ctx.skip();
    const res = spawnSync(server, ['--root', ROOT, '--config', 'ops/temporal', '--env', 'production', 'render-config'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, POSTGRES_SEEDS: 'postgres', POSTGRES_USER: 'postgres', POSTGRES_PWD: 'x' },
    });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('pluginName: postgres12');
    expect(res.stdout).toContain('databaseName: temporal_visibility');
  });
});
