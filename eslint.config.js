// @ts-check
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * Folder rules (docs/CONVENTIONS.md "Folders"): what each top-level folder may import of ours,
 * checked on resolved paths by import-x/no-restricted-paths. Every zone names a target and what
 * it must not import; `may` lists the folders it may, so each rule reads as an allow-list.
 * `scripts/`, `bench/` and `test/` may import anything; `workflows/` has its own rules below.
 */
const root = import.meta.dirname;
const FOLDERS = ['activities', 'api', 'bench', 'db', 'domain', 'lib', 'plugins', 'sandbox', 'scripts', 'sdk', 'test', 'workflows'];
/** Workflow contracts: what code outside `workflows/` may import from it (never workflow code). */
const WORKFLOW_CONTRACTS = [join(root, 'workflows/{*/contract,search-attributes,schedules}.ts')];
const see = '(docs/CONVENTIONS.md "Folders")';

/**
 * @param {string} target folder (or glob) the rule is for
 * @param {string[]} may top-level folders it may import besides itself
 * @param {string} message why, in Chinese and English
 * @returns {{ target: string, from: string[], message: string }}
 */
function onlyFrom(target, may, message) {
  const own = target.split('/')[0];
  const from = FOLDERS.filter((f) => f !== own && !may.includes(f)).map((f) => `./${f}`);
  return { target: `./${target}`, from, message: `${message} ${see}` };
}

/** The built-in plugins, `plugins/<domain>/<slug>/`: each may import only itself, the runtime contract and lib. */
const builtInPlugins = readdirSync(join(root, 'plugins'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'runtime')
  .flatMap((d) =>
    readdirSync(join(root, 'plugins', d.name), { withFileTypes: true })
      .filter((s) => s.isDirectory())
      .map((s) => `${d.name}/${s.name}`),
  );

const folderZones = [
  onlyFrom('lib', [], 'lib 不导入本项目其他目录 / lib imports nothing of ours'),
  onlyFrom('db', ['lib'], 'db 只能导入 lib / db imports only lib'),
  onlyFrom('sandbox', ['lib'], '沙箱只能导入 lib，自行实现协议，不导入它所模拟的插件 / a sandbox imports only lib'),
  onlyFrom('plugins/runtime', ['lib', 'db'], '插件运行时只能导入 lib 与 db / the plugin runtime imports only lib and db'),
  { target: './plugins/runtime', from: './plugins', except: ['./runtime'], message: `插件运行时不导入内置插件的代码 / the runtime never imports a built-in plugin's code ${see}` },
  ...builtInPlugins.flatMap((plugin) => [
    onlyFrom(`plugins/${plugin}`, ['lib'], '内置插件只能导入运行时契约与 lib / a built-in plugin imports only the runtime contract and lib'),
    {
      target: `./plugins/${plugin}`,
      from: './plugins',
      except: ['./runtime/contract.ts', `./${plugin}`],
      message: `内置插件只能导入运行时契约与 lib / a built-in plugin imports only the runtime contract and lib ${see}`,
    },
  ]),
  onlyFrom('domain', ['db', 'lib', 'plugins', 'workflows'], '领域代码不导入 api、activities、沙箱与脚本 / domain never imports api, activities, sandbox or scripts'),
  { target: './domain', from: './plugins', except: ['./runtime'], message: `领域代码只通过插件运行时调用插件 / domain reaches plugins only through the runtime ${see}` },
  { target: './domain', from: ['./workflows/**'], except: WORKFLOW_CONTRACTS, message: `领域代码只能导入工作流契约 / domain imports workflow contracts only, never workflow code ${see}` },
  onlyFrom('activities', ['db', 'domain', 'lib', 'plugins', 'workflows'], '活动不导入 api、沙箱与脚本 / activities never import api, sandbox or scripts'),
  { target: './activities', from: ['./workflows/**'], except: WORKFLOW_CONTRACTS, message: `活动只能导入工作流契约 / activities import workflow contracts only ${see}` },
  onlyFrom('api', ['db', 'domain', 'lib', 'plugins', 'workflows'], 'api 不导入活动、沙箱与脚本 / api never imports activities, sandbox or scripts'),
  { target: './api', from: ['./workflows/**'], except: WORKFLOW_CONTRACTS, message: `api 只能导入工作流契约 / api imports workflow contracts only ${see}` },
  {
    target: './api',
    from: './plugins',
    except: ['./runtime/contract.ts', './runtime/config-view.ts'],
    message: `api 只能导入插件契约与配置展示，调用插件走领域代码 / api imports only the plugin contract and config view; plugin calls go through domain ${see}`,
  },
];

const noDefaultExport = { selector: 'ExportDefaultDeclaration', message: '不使用默认导出 / no default exports' };
/** Sequelize's own after-commit hook runs when the COMMIT fails too (docs/CONVENTIONS.md "What follows a commit"). */
const noSequelizeAfterCommit = {
  selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='afterCommit']",
  message: '不用 transaction.afterCommit（提交失败时也会执行）：用 db/commit-hooks.ts 的 onCommit / use onCommit (db/commit-hooks.ts), not Sequelize afterCommit',
};

/**
 * The two ways `domain/` reaches the database (docs/CONVENTIONS.md "Data"): models, and raw SQL
 * through `db/sql.ts`. `sequelize.query` and `db.read` are the others, kept out by these selectors
 * (`test/architecture/data-access.test.ts` proves they fire).
 */
const twoWays = '领域代码只用两种方式访问数据库：模型，或 db/sql.ts 的 sqlRows/sqlOne/inTransaction / domain reaches the database through models or db/sql.ts only (docs/CONVENTIONS.md "Data")';
const otherWaysToTheDatabase = [
  { selector: "MemberExpression[property.name='query'][object.property.name='sequelize']", message: `不用 sequelize.query：${twoWays}` },
  { selector: "MemberExpression[property.name='query'][object.name='sequelize']", message: `不用 sequelize.query：${twoWays}` },
  { selector: "MemberExpression[property.name='read'][object.property.name='db']", message: `不用 db.read：${twoWays}` },
  { selector: "VariableDeclarator[init.property.name='db'] > ObjectPattern > Property[key.name='read']", message: `不用 db.read：${twoWays}` },
  { selector: "VariableDeclarator[init.property.name='sequelize'] > ObjectPattern > Property[key.name='query']", message: `不用 sequelize.query：${twoWays}` },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', noDefaultExport, noSequelizeAfterCommit],
    },
  },
  {
    files: ['domain/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', noDefaultExport, noSequelizeAfterCommit, ...otherWaysToTheDatabase] },
  },
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Sources import `./x.js` for `./x.ts` (NodeNext): resolve as TypeScript does.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: root, zones: folderZones }] },
  },
  {
    // Workflow code is replayed: it must stay deterministic and free of I/O (DESIGN.md).
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: '工作流代码不能导入 Node 内置模块 / no Node built-ins in workflows' })),
          patterns: [
            {
              group: ['**/domain/**', '**/db/**', '**/plugins/**', '**/api/**', 'pg', 'sequelize', 'pino'],
              message: '工作流代码不能导入有 I/O 的模块 / no I/O modules in workflows',
            },
            {
              group: ['**/activities/**', '**/activities'],
              allowTypeImports: true,
              message: '工作流只能以 import type 引用活动 / import activities by type only',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Config files whose tools require a default export.
    files: ['vitest.config.ts', 'eslint.config.js', 'test/setup/global-setup.ts', 'test/setup/previous-release.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
