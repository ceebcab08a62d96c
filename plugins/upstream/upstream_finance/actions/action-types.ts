import type { PluginExecuteInput } from '../../../runtime/contract.js';
import type { FinanceSession } from '../client/session.js';
import type { FinanceSettings } from '../config.js';

export type ActionContext = { input: PluginExecuteInput; settings: FinanceSettings; session: FinanceSession };

export type ActionOutcome = { message: string; data: Record<string, unknown> };

export type FinanceAction = (context: ActionContext) => Promise<ActionOutcome>;
