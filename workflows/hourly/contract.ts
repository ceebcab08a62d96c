import type { CadenceInput, CadenceResult } from '../cadence/contract.js';

export const HOURLY_WORKFLOW_TYPE = 'hourlyWorkflow';
export const HOURLY_TASK_KEY = 'hourly';
export const HOURLY_FAILED = 'HourlyFailed';

export type HourlyInput = CadenceInput;
export type HourlyResult = CadenceResult;
