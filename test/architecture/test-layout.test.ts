import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Tests mirror the source for routes and workflows (docs/testing.md "Where a test lives"):
 * the tests of `api/routes/<surface>/<area>.ts` are `test/api/routes/<surface>/<area>.test.ts`
 * or the files of a folder `test/api/routes/<surface>/<area>/`; the tests of the workflow in
 * `workflows/<name>/` are the files of `test/workflows/<name>/`.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

type Elsewhere = { file: string; mentions: string };

/**
 * Route files without tests of their own yet: each is exercised by another test file, named here
 * with a string that file contains (its path or the route's URL). Move or write the tests at the
 * mirrored path and drop the line; the check below fails once a listed route has its own file.
 */
const ROUTES_TESTED_ELSEWHERE: Record<string, Elsewhere> = {
  // Personal tokens on both surfaces are one flow: an admin lists and revokes what clients made.
  'admin/access-tokens.ts': { file: 'test/api/routes/client/access-tokens.test.ts', mentions: '/api/v2/admin/access-tokens' },
  // Every catalogue write is checked in its audit list by the tests of the catalogue routes.
  'admin/catalogue-audit.ts': { file: 'test/api/routes/admin/products.test.ts', mentions: '/api/v2/admin/catalogue-audit-logs' },
  // The invoice documents of an adjustment, and the refunds' invoice list.
  'admin/invoices.ts': { file: 'test/api/routes/admin/balance-adjustments.test.ts', mentions: '/api/v2/admin/invoices/' },
  'admin/ledger.ts': { file: 'test/api/routes/admin/balance-adjustments.test.ts', mentions: '/api/v2/admin/account-transactions' },
  'admin/logs.ts': { file: 'test/api/routes/admin/audit-logs.test.ts', mentions: '/api/v2/admin/logs/clean-up' },
  // The notices the reminder tasks send are what the log lists.
  'admin/notification-logs.ts': { file: 'test/domain/notifications/reminders.test.ts', mentions: '/api/v2/admin/logs/notification-logs' },
  'admin/plugin-bindings.ts': { file: 'test/api/routes/admin/plugins.test.ts', mentions: '/bindings' },
  'admin/plugin-runtime-logs.ts': { file: 'test/api/routes/admin/plugins.test.ts', mentions: '/runtime-logs' },
  // The directory's three levels are one tree, tested together.
  'admin/product-categories.ts': { file: 'test/api/routes/admin/product-menus.test.ts', mentions: '/api/v2/admin/product-categories' },
  'admin/product-groups.ts': { file: 'test/api/routes/admin/product-menus.test.ts', mentions: '/api/v2/admin/product-groups' },
  // Renewal orders awaiting an admin, retried and cancelled.
  'admin/service-orders.ts': { file: 'test/api/routes/client/service-renewals.test.ts', mentions: '/api/v2/admin/service-orders' },
  'admin/services.ts': { file: 'test/api/routes/client/services.test.ts', mentions: '/api/v2/admin/services' },
  // Departments, and tickets from both sides of one conversation.
  'admin/tickets.ts': { file: 'test/api/routes/client/tickets.test.ts', mentions: '/api/v2/admin/tickets' },
  'admin/user-management.ts': { file: 'test/api/routes/admin/users.test.ts', mentions: '/api/v2/admin/users/' },
  'admin/verifications.ts': { file: 'test/api/routes/client/verification.test.ts', mentions: '/api/v2/admin/verifications' },
  'client/balance.ts': { file: 'test/api/routes/admin/balance-adjustments.test.ts', mentions: '/api/v2/client/balance-logs' },
  'client/content.ts': { file: 'test/api/routes/admin/content.test.ts', mentions: '/api/v2/client/notices' },
  // Recharges share the repair and fulfilment tests of billing (QR notifications, backstops).
  'client/recharge.ts': { file: 'test/api/billing/recharge-and-repair.test.ts', mentions: '/api/v2/client/recharge' },
  // Signed links to uploads, made and refused in the upload tests.
  'secure-assets.ts': { file: 'test/api/routes/admin/content.test.ts', mentions: '/api/secure-assets/view' },
  'site/content.ts': { file: 'test/api/routes/admin/content.test.ts', mentions: '/api/v2/site/home-hero' },
  'site/product-types.ts': { file: 'test/api/routes/admin/product-types.test.ts', mentions: '/api/v2/site/product-types' },
  // Product detail and quote are tested with the site directory they are reached from.
  'site/products.ts': { file: 'test/api/routes/site/catalogue.test.ts', mentions: 'site product detail' },
};

/**
 * Workflows whose tests drive them end to end through their route, in that route's test file
 * (which records their replay histories). The check below fails once a listed workflow has a
 * folder of its own under test/workflows/.
 */
const WORKFLOWS_TESTED_ELSEWHERE: Record<string, Elsewhere> = {
  // The three cadences run one body (workflows/cadence/run-cadence.ts), tested together.
  daily: { file: 'test/workflows/cadence/scheduler.test.ts', mentions: 'DAILY_WORKFLOW_TYPE' },
  hourly: { file: 'test/workflows/cadence/scheduler.test.ts', mentions: 'HOURLY_WORKFLOW_TYPE' },
  refund: { file: 'test/api/routes/admin/refunds.test.ts', mentions: 'REFUND_WORKFLOW_TYPE' },
  renewal: { file: 'test/api/routes/client/service-renewals.test.ts', mentions: 'RENEW_WORKFLOW_TYPE' },
  'traffic-package': { file: 'test/api/routes/client/service-traffic.test.ts', mentions: 'TRAFFIC_WORKFLOW_TYPE' },
  upgrade: { file: 'test/api/routes/client/service-upgrades.test.ts', mentions: 'UPGRADE_WORKFLOW_TYPE' },
  verification: { file: 'test/api/routes/client/verification.test.ts', mentions: 'VERIFICATION_WORKFLOW_TYPE' },
};

function filesUnder(dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(root, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

const isTest = (path: string) => path.endsWith('.test.ts');

/** Route files, relative to api/routes/; a file that declares no router (shared inputs) has nothing to test alone. */
const routeFiles = filesUnder('api/routes')
  .filter((path) => path.endsWith('.ts') && readFileSync(join(root, path), 'utf8').includes('createRouter('))
  .map((path) => path.slice('api/routes/'.length))
  .sort();

/** Workflow folders: those with a `workflow.ts` (cadence, service-order and upstream hold shared code). */
const workflowNames = readdirSync(join(root, 'workflows'))
  .filter((name) => existsSync(join(root, 'workflows', name, 'workflow.ts')))
  .sort();

function routeHasTests(route: string): boolean {
  const stem = `test/api/routes/${route.replace(/\.ts$/, '')}`;
  return existsSync(join(root, `${stem}.test.ts`)) || filesUnder(stem).some(isTest);
}

const workflowHasTests = (name: string) => filesUnder(`test/workflows/${name}`).some(isTest);

function expectElsewhere(what: string, where: Elsewhere): void {
  expect(existsSync(join(root, where.file)), `${what}: ${where.file} exists`).toBe(true);
  expect(readFileSync(join(root, where.file), 'utf8'), `${what}: ${where.file} mentions ${where.mentions}`).toContain(where.mentions);
}

describe('route tests mirror api/routes', () => {
  it('finds the route files', () => {
    expect(routeFiles.length).toBeGreaterThan(50);
  });

  it('has test/api/routes/<surface>/<area>.test.ts (or a folder of that name) for every route file', () => {
    const missing = routeFiles.filter((route) => !routeHasTests(route) && !(route in ROUTES_TESTED_ELSEWHERE));
    expect(missing, 'route files without tests at their mirrored path').toEqual([]);
  });

  it('keeps the allow-list true: listed routes exist, have no tests of their own yet, and are exercised where it says', () => {
    for (const [route, where] of Object.entries(ROUTES_TESTED_ELSEWHERE)) {
      expect(routeFiles, `${route} is a route file`).toContain(route);
      expect(routeHasTests(route), `${route} has its own tests now: remove it from ROUTES_TESTED_ELSEWHERE`).toBe(false);
      expectElsewhere(route, where);
    }
  });

  it('puts no test under test/api/routes that mirrors no route file', () => {
    const stray = filesUnder('test/api/routes')
      .filter(isTest)
      .filter((path) => {
        const rel = path.slice('test/api/routes/'.length).replace(/\.test\.ts$/, '');
        const asFile = `${rel}.ts`;
        const asFolder = `${rel.split('/').slice(0, -1).join('/')}.ts`;
        return !routeFiles.includes(asFile) && !routeFiles.includes(asFolder);
      });
    expect(stray, 'tests under test/api/routes that match no api/routes file').toEqual([]);
  });
});

describe('workflow tests mirror workflows', () => {
  it('finds the workflows', () => {
    expect(workflowNames.length).toBeGreaterThan(5);
  });

  it('has test/workflows/<name>/*.test.ts for every workflow', () => {
    const missing = workflowNames.filter((name) => !workflowHasTests(name) && !(name in WORKFLOWS_TESTED_ELSEWHERE));
    expect(missing, 'workflows without tests at test/workflows/<name>/').toEqual([]);
  });

  it('keeps the allow-list true: listed workflows exist, have no folder of tests yet, and are exercised where it says', () => {
    for (const [name, where] of Object.entries(WORKFLOWS_TESTED_ELSEWHERE)) {
      expect(workflowNames, `${name} is a workflow`).toContain(name);
      expect(workflowHasTests(name), `${name} has its own tests now: remove it from WORKFLOWS_TESTED_ELSEWHERE`).toBe(false);
      expectElsewhere(name, where);
    }
  });

  it('names every folder under test/workflows after a folder of workflows/', () => {
    const folders = readdirSync(join(root, 'test/workflows')).filter((name) => statSync(join(root, 'test/workflows', name)).isDirectory());
    expect(folders.filter((name) => !existsSync(join(root, 'workflows', name)))).toEqual([]);
  });
});
