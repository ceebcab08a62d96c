import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Tests mirror the source for routes and workflows (docs/testing.md "Where a test lives"):
 * the tests of `api/routes/<surface>/<area>.ts` are `test/api/routes/<surface>/<area>.test.ts`
 * or the files of a folder `test/api/routes/<surface>/<area>/`; the tests of the workflow in
 * `workflows/<name>/` are the files of `test/workflows/<name>/`. There is no exemption list: a
 * route or workflow exercised only from another file's tests fails here.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

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

describe('route tests mirror api/routes', () => {
  it('finds the route files', () => {
    expect(routeFiles.length).toBeGreaterThan(50);
  });

  it('has test/api/routes/<surface>/<area>.test.ts (or a folder of that name) for every route file', () => {
    const missing = routeFiles.filter((route) => !routeHasTests(route));
    expect(missing, 'route files without tests at their mirrored path').toEqual([]);
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
    const missing = workflowNames.filter((name) => !workflowHasTests(name));
    expect(missing, 'workflows without tests at test/workflows/<name>/').toEqual([]);
  });

  it('names every folder under test/workflows after a folder of workflows/', () => {
    const folders = readdirSync(join(root, 'test/workflows')).filter((name) => statSync(join(root, 'test/workflows', name)).isDirectory());
    expect(folders.filter((name) => !existsSync(join(root, 'workflows', name)))).toEqual([]);
  });
});
