import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The folder-rule messages lint gives `code` written at `filePath` (imports resolve against the real tree). */
async function folderRuleMessages(filePath: string, line: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${line}\nexport const x = 1;\n`, { filePath });
  const messages = result?.messages ?? [];
  // A parse or config error would hide the rule: fail loudly instead of passing quietly.
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.filter((m) => m.ruleId === 'import-x/no-restricted-paths').map((m) => m.message);
}

describe('folder rules hold (lint, docs/CONVENTIONS.md "Folders")', () => {
  it.each([
    ['lib/example.ts', "import type { DomainDeps } from '../domain/deps.js';", 'lib imports nothing of ours'],
    ['lib/example.ts', "import { createDatabase } from '../db/sequelize.js';", 'lib imports nothing of ours'],
    ['db/models/example.ts', "import type { RefundScope } from '../../domain/billing/constants.js';", 'db imports only lib'],
    ['db/example.ts', "import type { PluginExecuteInput } from '../plugins/runtime/contract.js';", 'db imports only lib'],
    ['db/example.ts', "import { startSandboxes } from '../sandbox/launcher.js';", 'db imports only lib'],
    ['sandbox/qrpay/example.ts', "import { sign } from '../../plugins/payment/qrpay/signing.js';", 'a sandbox imports only lib'],
    ['sandbox/qrpay/example.ts', "import type { DomainDeps } from '../../domain/deps.js';", 'a sandbox imports only lib'],
    ['domain/users/example.ts', "import { createApp } from '../../api/app.js';", 'domain never imports api'],
    ['domain/users/example.ts', "import { createActivities } from '../../activities/index.js';", 'domain never imports api, activities'],
    ['domain/users/example.ts', "import { seedDemoData } from '../../scripts/seeders/demo.js';", 'domain never imports api, activities, sandbox or scripts'],
    ['domain/users/example.ts', "import { provisionServiceWorkflow } from '../../workflows/provisioning/workflow.js';", 'workflow contracts only'],
    ['domain/billing/example.ts', "import { execute } from '../../plugins/payment/qrpay/index.js';", 'only through the runtime'],
    ['plugins/runtime/example.ts', "import type { DomainDeps } from '../../domain/deps.js';", 'the plugin runtime imports only lib and db'],
    ['plugins/runtime/example.ts', "import { execute } from '../payment/qrpay/index.js';", "never imports a built-in plugin's code"],
    ['plugins/payment/qrpay/example.ts', "import { execute } from '../../sms/smsgate/index.js';", 'only the runtime contract and lib'],
    ['plugins/payment/qrpay/example.ts', "import { invokePlugin } from '../../runtime/invoke.js';", 'only the runtime contract and lib'],
    ['plugins/payment/qrpay/example.ts', "import { sqlRows } from '../../../db/sql.js';", 'only the runtime contract and lib'],
    ['activities/example.ts', "import { createApp } from '../api/app.js';", 'activities never import api'],
    ['api/routes/example.ts', "import { createActivities } from '../../activities/index.js';", 'api never imports activities'],
    ['api/routes/example.ts', "import { invokePlugin } from '../../plugins/runtime/invoke.js';", 'plugin calls go through domain'],
    ['api/routes/example.ts', "import { startSandboxes } from '../../sandbox/launcher.js';", 'api never imports activities, sandbox'],
  ])('refuses %s: %s', async (filePath, line, reason) => {
    const messages = await folderRuleMessages(filePath, line);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(reason);
  });

  it.each([
    ['lib/example.ts', "import { money } from './money.js';"],
    ['db/example.ts', "import { money } from '../lib/money.js';"],
    ['sandbox/qrpay/example.ts', "import { formatDateTime } from '../../lib/time.js';"],
    ['domain/users/example.ts', "import { sqlRows } from '../../db/sql.js';"],
    ['domain/users/example.ts', "import { invokePlugin } from '../../plugins/runtime/invoke.js';"],
    ['domain/users/example.ts', "import { provisionWorkflowId } from '../../workflows/provisioning/contract.js';"],
    ['domain/users/example.ts', "import { SearchAttr } from '../../workflows/search-attributes.js';"],
    ['plugins/runtime/example.ts', "import { sqlRows } from '../../db/sql.js';"],
    ['plugins/payment/qrpay/example.ts', "import type { PluginExecuteInput } from '../../runtime/contract.js';"],
    ['plugins/payment/qrpay/example.ts', "import { sign } from './signing.js';"],
    ['activities/example.ts', "import { invokePlugin } from '../plugins/runtime/invoke.js';"],
    ['api/routes/example.ts', "import { PLUGIN_DOMAINS } from '../../plugins/runtime/contract.js';"],
    ['api/routes/example.ts', "import { SERVICE_STATUSES } from '../../db/models/service.js';"],
    ['scripts/example.ts', "import { startSandboxes } from '../sandbox/launcher.js';"],
    ['test/example.ts', "import { execute } from '../plugins/payment/qrpay/index.js';"],
  ])('allows %s: %s', async (filePath, line) => {
    expect(await folderRuleMessages(filePath, line)).toEqual([]);
  });
});
