import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { FORBIDDEN_FIELD_TYPES, UNIMPLEMENTED_FIELD_TYPES } from '../../../plugins/runtime/contract.js';
import { checkPluginForInstall } from '../../../plugins/runtime/install-check.js';
import { createPluginsRoot, fixtureManifest } from '../../helpers/plugin-fixtures.js';

const fixtures = createPluginsRoot();
afterAll(() => fixtures.cleanup());

let counter = 0;
const nextSlug = () => `p${++counter}`;

async function refusal(run: () => Promise<unknown>): Promise<{ code: number; message: string; errors: Record<string, string[]> }> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, message: error.message, errors: (error.data as { errors: Record<string, string[]> } | null)?.errors ?? {} };
  }
  throw new Error('expected a refusal');
}

function install(slug: string, takenKeys = new Map<string, string>()) {
  return checkPluginForInstall({ root: fixtures.root, domain: 'payment', slug, takenKeys });
}

function validTask(patch: Record<string, unknown> = {}) {
  return {
    key: 'sync_orders',
    title: '同步订单',
    description: '',
    category: 'payment',
    triggers: [{ type: 'heartbeats', every: 1 }],
    handle: 'tasks.sync',
    timeout: 60,
    lockTtlSeconds: 120,
    manualTriggerable: true,
    ...patch,
  };
}

async function refusedWith(patch: Parameters<typeof fixtureManifest>[2], field: string, reason: RegExp) {
  const slug = nextSlug();
  fixtures.write('payment', slug, fixtureManifest('payment', slug, patch));
  const res = await refusal(() => install(slug));
  expect(res.code).toBe(42200);
  expect(res.message).toMatch(/^插件安装失败：/);
  expect(Object.keys(res.errors)).toContain(field);
  expect(res.errors[field]?.join('；')).toMatch(reason);
}

describe('install validation', () => {
  it('accepts a complete plugin and fills task defaults', async () => {
    const slug = nextSlug();
    fixtures.write(
      'payment',
      slug,
      fixtureManifest('payment', slug, {
        info: {
          extra: {
            scheduled_tasks: [
              validTask({ queue: undefined }),
              validTask({ key: 'nightly', triggers: [{ type: 'cron', expression: '15,45 3 * * *' }, { type: 'automation_config', key: 'x' }] }),
            ],
            schedule_hooks: {
              'tick.daily': ['DailyReport', 'DailyReport@onTick', ['DailyReport', 'onTick'], { callable: 'onTick' }],
              [`plugins.${slug}.after_sync`]: [{ callable: 'onTick' }],
            },
          },
        },
        config: { app_id: { title: '应用编号', type: 'text', required: true }, notice: { type: 'notice', value: '说明' } },
      }),
    );
    const manifest = await install(slug);
    expect(manifest.info.extra?.scheduled_tasks?.[0]?.queue).toBe('automation');
  });

  it.each([...FORBIDDEN_FIELD_TYPES])('refuses the forbidden field type %s naming the field', async (type) => {
    await refusedWith({ config: { bad_field: { title: '字段', type } } }, 'config.bad_field.type', new RegExp(`bad_field.*禁止.*${type}`));
  });

  it.each([...UNIMPLEMENTED_FIELD_TYPES])('refuses the unimplemented field type %s naming the field', async (type) => {
    await refusedWith({ config: { later: { type } } }, 'config.later.type', new RegExp(`later.*${type}.*尚未实现`));
  });

  it('refuses an unknown field type', async () => {
    await refusedWith({ config: { odd: { type: 'colour' } } }, 'config.odd.type', /odd.*colour.*不受支持/);
  });

  it('refuses a cron trigger whose minute is 7', async () => {
    const tasks = [validTask({ triggers: [{ type: 'cron', expression: '7 * * * *' }] })];
    await refusedWith({ info: { extra: { scheduled_tasks: tasks } } }, 'info.extra.scheduled_tasks[0].triggers[0].expression', /分钟字段只能使用 0、15、30、45/);
  });

  it('refuses a cron expression without five fields and heartbeats below 1', async () => {
    const tasks = [validTask({ triggers: [{ type: 'cron', expression: '0 * * *' }, { type: 'heartbeats', every: 0 }] })];
    await refusedWith({ info: { extra: { scheduled_tasks: tasks } } }, 'info.extra.scheduled_tasks[0].triggers[1].every', /不小于 1 的整数/);
  });

  it('refuses a lock TTL below timeout + 60', async () => {
    const tasks = [validTask({ timeout: 100, lockTtlSeconds: 159 })];
    await refusedWith({ info: { extra: { scheduled_tasks: tasks } } }, 'info.extra.scheduled_tasks[0].lockTtlSeconds', /至少为 timeout \+ 60（160 秒）/);
  });

  it('refuses a cron expression with a field out of range and a task key with spaces or slashes', async () => {
    const tasks = [validTask({ triggers: [{ type: 'cron', expression: '0 24 * * *' }] }), validTask({ key: 'has space/slash' })];
    await refusedWith({ info: { extra: { scheduled_tasks: tasks } } }, 'info.extra.scheduled_tasks[0].triggers[0].expression', /小时字段超出范围 0-23：24/);
    const res = await refusal(() => install(`p${counter}`));
    expect(res.errors['info.extra.scheduled_tasks[1].key']?.[0]).toMatch(/只能使用字母、数字、点、下划线和短横线/);
  });

  it('refuses a duplicate task key, a padded key, an empty handle and a zero timeout', async () => {
    const tasks = [validTask(), validTask(), validTask({ key: ' padded ', handle: '', timeout: 0 })];
    await refusedWith({ info: { extra: { scheduled_tasks: tasks } } }, 'info.extra.scheduled_tasks[1].key', /重复/);
    const slug = `p${counter}`;
    const res = await refusal(() => install(slug));
    expect(res.errors['info.extra.scheduled_tasks[2].key']?.[0]).toMatch(/首尾空格/);
    expect(res.errors['info.extra.scheduled_tasks[2].handle']?.[0]).toMatch(/不能为空/);
    expect(res.errors['info.extra.scheduled_tasks[2].timeout']?.[0]).toMatch(/大于 0/);
  });

  it.each([
    ['a missing class', 'Missing', /没有导出类 Missing/],
    ['a missing method', 'DailyReport@nope', /没有方法 nope/],
    ['a missing pair method', ['DailyReport', 'gone'], /没有方法 gone/],
    ['a missing callable', { callable: 'absent' }, /没有导出函数 absent/],
  ])('refuses a hook listener naming %s', async (_label, listener, reason) => {
    await refusedWith({ info: { extra: { schedule_hooks: { 'task.after': [listener] } } } }, 'info.extra.schedule_hooks.task.after[0]', reason);
  });

  it('refuses an unknown hook name', async () => {
    await refusedWith({ info: { extra: { schedule_hooks: { 'tick.every_second': ['DailyReport'] } } } }, 'info.extra.schedule_hooks.tick.every_second', /不存在/);
  });

  it('refuses a slug different from the directory name', async () => {
    await refusedWith({ info: { slug: 'other_name' } }, 'info.slug', /与目录名.*不一致/);
  });

  it('refuses an entry without execute and a missing entry file', async () => {
    const slug = nextSlug();
    fixtures.write('payment', slug, fixtureManifest('payment', slug), 'export const nothing = 1;\n');
    const res = await refusal(() => install(slug));
    expect(res.errors['info.entry']?.[0]).toMatch(/没有导出 execute/);
    const slug2 = nextSlug();
    fixtures.write('payment', slug2, fixtureManifest('payment', slug2), null);
    expect((await refusal(() => install(slug2))).errors['info.entry']?.[0]).toMatch(/入口文件 index.js 不存在/);
  });

  it('refuses a missing or broken manifest and a key taken in the domain', async () => {
    const slug = nextSlug();
    fixtures.write('payment', slug, null);
    expect((await refusal(() => install(slug))).errors.manifest?.[0]).toMatch(/缺少 manifest.json/);
    const slug2 = nextSlug();
    fixtures.write('payment', slug2, '{not json');
    expect((await refusal(() => install(slug2))).errors.manifest?.[0]).toMatch(/不是有效的 JSON/);
    const slug3 = nextSlug();
    fixtures.write('payment', slug3, fixtureManifest('payment', slug3, { info: { key: 'shared' } }));
    const res = await refusal(() => install(slug3, new Map([['shared', 'someone']])));
    expect(res.errors['info.key']?.[0]).toMatch(/已被同领域的插件 someone 使用/);
  });

  it('refuses malformed field attributes', async () => {
    await refusedWith(
      { config: { mode: { type: 'select' }, when: { type: 'text', visible_when: { field: 'ghost', operator: 'eq', value: 1 } } } },
      'config.mode.options',
      /需要 options/,
    );
    await refusedWith({ config: { code: { type: 'text', rules: { pattern: '([' } } } }, 'config.code.rules.pattern', /不是有效的正则/);
    await refusedWith({ config: { n: { type: 'number', secret: true } } }, 'config.n.secret', /不能声明为密钥/);
  });

  it('does not install demo plugins', async () => {
    fixtures.write('payment', 'demo_pay', fixtureManifest('payment', 'demo_pay'));
    const res = await refusal(() => install('demo_pay'));
    expect(res.code).toBe(40400);
  });

  it('loads index.js when present and falls back to index.ts in source', async () => {
    const slug = nextSlug();
    fixtures.write('payment', slug, fixtureManifest('payment', slug), 'export async function execute() { return { success: true }; }\n', 'index.js');
    await expect(install(slug)).resolves.toMatchObject({ info: { slug } });
  });
});
