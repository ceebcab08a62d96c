import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { createFinanceSession } from './client/session.js';
import { UpstreamError } from './client/upstream-error.js';
import { readFinanceSettings, type FinanceSettings } from './config.js';
import { COMMITTING_ACTIONS, FINANCE_ACTIONS } from './actions/registry.js';
import { fail, succeed } from './result.js';

/**
 * Entry of the finance-style upstream plugin: catalogue, buying (probe, cart, checkout, pay),
 * order checks, hosts, renewals, traffic packages, host and custom module actions.
 */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  const action = FINANCE_ACTIONS[input.action];
  if (!action) {
    return fail(input.action, new UpstreamError({ reason: 'unsupported_action', kind: 'permanent', message: '上游插件不支持该操作' }));
  }
  let settings: FinanceSettings;
  try {
    settings = readFinanceSettings(input);
  } catch (err) {
    return fail(input.action, err);
  }
  const session = createFinanceSession(settings, input.context.signal);
  try {
    const outcome = await action({ input, settings, session });
    return succeed(input.action, outcome.message, outcome.data, { session: { ...session.trace } });
  } catch (err) {
    const failure = fail(input.action, err, { session: { ...session.trace } });
    if (input.action === 'health_check') failure.data['healthy'] = false;
    // A bug after a committing call was sent must not pass for "nothing happened".
    if (failure.data['error_code'] === 'internal' && COMMITTING_ACTIONS.has(input.action)) failure.data['error_kind'] = 'ambiguous';
    return failure;
  }
}
