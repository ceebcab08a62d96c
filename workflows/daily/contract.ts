import type { CadenceInput, CadenceResult } from '../cadence/contract.js';

export const DAILY_WORKFLOW_TYPE = 'dailyWorkflow';
export const DAILY_TASK_KEY = 'daily';
export const DAILY_FAILED = 'DailyFailed';

export type DailyInput = CadenceInput;
export type DailyResult = CadenceResult;
