// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: '不使用默认导出 / no default exports' }],
    },
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
    files: ['vitest.config.ts', 'eslint.config.js', 'test/setup/global-setup.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
