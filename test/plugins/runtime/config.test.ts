import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { createSecretBox, maskSecret } from '../../../lib/crypto.js';
import type { ConfigFieldDefinition } from '../../../plugins/runtime/contract.js';
import { applyConfig, initialConfig } from '../../../plugins/runtime/config-apply.js';
import { openConfig } from '../../../plugins/runtime/config-open.js';
import { configView, hasSecretValues } from '../../../plugins/runtime/config-view.js';
import { missingRequired, type StoredConfig } from '../../../plugins/runtime/required-check.js';

const box = createSecretBox('x'.repeat(40));
const empty: StoredConfig = { config: {}, secrets: {} };

function save(fields: Record<string, ConfigFieldDefinition>, submitted: Record<string, unknown>, stored = empty, requireAll = false) {
  return applyConfig({ fields, stored, submitted, secretBox: box, requireAll });
}

function errorsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError && error.code === 42200) return (error.data as { errors: Record<string, string[]> }).errors;
    throw error;
  }
  throw new Error('expected 42200');
}

describe('config validation', () => {
  it('enforces required visible fields at save and every applicable one to enable', () => {
    const fields: Record<string, ConfigFieldDefinition> = {
      mode: { type: 'select', options: { live: '正式', sandbox: '沙箱' } },
      app_id: { title: '应用编号', type: 'text', required: true },
      hidden_key: { title: '隐藏项', type: 'text', required: true, visible: false },
      sandbox_url: { title: '沙箱地址', type: 'url', required: true, visible_when: { field: 'mode', operator: 'eq', value: 'sandbox' } },
    };
    expect(errorsOf(() => save(fields, { mode: 'live' }))).toEqual({ app_id: ['请填写应用编号'] });
    const saved = save(fields, { mode: 'live', app_id: 'A1' });
    expect(missingRequired(fields, saved, 'enable')).toEqual({ hidden_key: ['请填写隐藏项'] });
    expect(errorsOf(() => save(fields, { mode: 'sandbox' }, saved))).toEqual({ sandbox_url: ['请填写沙箱地址'] });
  });

  it('applies rules: max length, max value, pattern and the custom message', () => {
    const fields: Record<string, ConfigFieldDefinition> = {
      name: { title: '名称', type: 'text', rules: { max: 4 } },
      retries: { title: '重试次数', type: 'number', rules: { max: 5 } },
      code: { title: '商户号', type: 'text', rules: { pattern: '^[0-9]{6}$' } },
      mch: { title: '编号', type: 'text', rules: { pattern: '^M', max: 3, message: '编号须以 M 开头且不超过 3 位' } },
    };
    expect(errorsOf(() => save(fields, { name: '五个字符啊', retries: 6, code: 'abc', mch: 'X' }))).toEqual({
      name: ['名称最多 4 个字符'],
      retries: ['重试次数不能大于 5'],
      code: ['商户号格式不正确'],
      mch: ['编号须以 M 开头且不超过 3 位'],
    });
    expect(save(fields, { name: '四个字符', retries: '5', code: '123456', mch: 'M12' }).config).toEqual({ name: '四个字符', retries: 5, code: '123456', mch: 'M12' });
  });

  it('checks each type', () => {
    const fields: Record<string, ConfigFieldDefinition> = {
      n: { type: 'number' },
      on: { type: 'switch' },
      pick: { type: 'radio', options: [{ label: '一', value: 1 }, { label: '二', value: 2 }] },
      many: { type: 'checkbox', options: { a: 'A', b: 'B' } },
      doc: { type: 'json' },
      site: { type: 'url' },
      mail: { type: 'email' },
      tel: { type: 'phone' },
    };
    const bad = errorsOf(() => save(fields, { n: 'x', on: 'maybe', pick: 3, many: ['a', 'z'], doc: '{oops', site: 'ftp://x', mail: 'nope', tel: 'abc' }));
    expect(Object.keys(bad).sort()).toEqual(['doc', 'mail', 'many', 'n', 'on', 'pick', 'site', 'tel']);
    const good = save(fields, { n: 2.5, on: 1, pick: '2', many: ['b', 'a'], doc: '{"a":[1]}', site: 'https://x.example', mail: 'a@b.cn', tel: '13800000000' });
    expect(good.config).toEqual({ n: 2.5, on: true, pick: 2, many: ['b', 'a'], doc: { a: [1] }, site: 'https://x.example', mail: 'a@b.cn', tel: '13800000000' });
  });

  it.each([
    ['eq', 'sandbox', ['sandbox'], ['live']],
    ['neq', 'live', ['sandbox'], ['live']],
    ['in', ['sandbox', 'test'], ['test'], ['live']],
    ['not_in', ['live'], ['sandbox'], ['live']],
  ] as const)('visible_when %s shows or hides a required field', (operator, value, shownFor, hiddenFor) => {
    const fields: Record<string, ConfigFieldDefinition> = {
      mode: { type: 'select', options: { live: '正式', sandbox: '沙箱', test: '测试' } },
      extra: { title: '附加项', type: 'text', required: true, visible_when: { field: 'mode', operator, value } },
    };
    for (const mode of shownFor) expect(errorsOf(() => save(fields, { mode }))).toEqual({ extra: ['请填写附加项'] });
    for (const mode of hiddenFor) expect(save(fields, { mode }).config).toEqual({ mode });
  });

  it('never saves display-only fields and refuses unknown keys', () => {
    const fields: Record<string, ConfigFieldDefinition> = {
      tip: { type: 'notice', value: '请先开通接口' },
      line: { type: 'divider' },
      shown: { type: 'readonly', value: 'v1' },
      name: { type: 'text' },
    };
    expect(save(fields, { tip: 'x', line: 'y', shown: 'z', name: 'n' }).config).toEqual({ name: 'n' });
    expect(errorsOf(() => save(fields, { nope: 1 }))).toEqual({ nope: ['该配置项不存在'] });
    expect(initialConfig({ ...fields, name: { type: 'text', default: 'd' } })).toEqual({ name: 'd' });
  });
});

describe('secrets', () => {
  const fields: Record<string, ConfigFieldDefinition> = {
    app_id: { type: 'text' },
    api_secret: { title: '密钥', type: 'password', required: true },
    token: { type: 'text', secret: true },
  };

  it('seals secrets, keeps them on an empty submission and never shows them', () => {
    const first = save(fields, { app_id: 'A', api_secret: 'sk-live-123456', token: 'tok-abcdef' });
    expect(first.config).toEqual({ app_id: 'A' });
    expect(first.secrets.api_secret).toMatch(/^v1:/);
    expect(JSON.stringify(first)).not.toContain('sk-live-123456');
    const second = save(fields, { app_id: 'B', api_secret: '', token: null }, first);
    expect(second.secrets).toEqual(first.secrets);
    expect(openConfig(fields, second, box)).toEqual({ config: { app_id: 'B', api_secret: 'sk-live-123456', token: 'tok-abcdef' }, secretValues: ['sk-live-123456', 'tok-abcdef'] });
    const view = configView(fields, second, box);
    expect(JSON.stringify(view)).not.toMatch(/sk-live|tok-abc/);
    expect(view.find((f) => f.key === 'api_secret')).toMatchObject({ secret: true, has_value: true, value: '' });
    expect(hasSecretValues(second)).toBe(true);
    const third = save(fields, { api_secret: 'sk-new' }, second);
    expect(openConfig(fields, third, box).config.api_secret).toBe('sk-new');
  });
});

describe('multi-account SMTP', () => {
  const fields: Record<string, ConfigFieldDefinition> = {
    accounts: { title: '发信账号', type: 'json', secret_keys: ['password'], required: true },
  };
  const accounts = [
    { host: 'smtp.a.example', user: 'a@a.example', password: 'alpha-pass-001' },
    { host: 'smtp.b.example', user: 'b@b.example', password: 'bravo-pass-002' },
  ];

  it('previews masked passwords and keeps them by index', () => {
    const first = save(fields, { accounts: JSON.stringify(accounts) });
    expect(JSON.stringify(first.config)).not.toContain('pass-00');
    const view = configView(fields, first, box)[0];
    expect(typeof view?.value).toBe('string');
    const preview = JSON.parse(view?.value as string) as Array<Record<string, unknown>>;
    expect(preview[0]).toMatchObject({ host: 'smtp.a.example', password: maskSecret('alpha-pass-001'), has_password: true });
    expect(preview[1]?.password).not.toBe('bravo-pass-002');
    expect(view?.value as string).not.toMatch(/alpha-pass-001|bravo-pass-002/);

    // Send the preview back with the first host changed, the second password empty, a third new account.
    const edited = [{ ...preview[0], host: 'smtp.c.example' }, { ...preview[1], password: '' }, { host: 'smtp.d.example', user: 'd', password: 'delta-pass-004' }];
    const second = save(fields, { accounts: edited }, first);
    const opened = openConfig(fields, second, box).config.accounts as Array<Record<string, unknown>>;
    expect(opened.map((a) => a.password)).toEqual(['alpha-pass-001', 'bravo-pass-002', 'delta-pass-004']);
    expect(opened[0]).toEqual({ host: 'smtp.c.example', user: 'a@a.example', password: 'alpha-pass-001' });

    const replaced = save(fields, { accounts: [{ ...preview[0], password: 'new-alpha-999' }] }, second);
    expect((openConfig(fields, replaced, box).config.accounts as Array<Record<string, unknown>>)[0]?.password).toBe('new-alpha-999');
    expect(errorsOf(() => save(fields, { accounts: '{"a":1}' }))).toEqual({ accounts: ['发信账号必须是对象数组'] });
  });
});
