import { type CadencePlan, runCadence } from '../cadence/run-cadence.js';
import { DAILY_FAILED, DAILY_TASK_KEY, type DailyInput, type DailyResult } from './contract.js';

/**
 * The daily run at DAILY_SCHEDULE_TIME (Asia/Shanghai): `before_daily_cron`, `tick.daily`, the
 * tasks driven by the daily cadence (log retention, ...), then `after_daily_cron`.
 */
const plan: CadencePlan = {
  kind: 'daily',
  taskKey: DAILY_TASK_KEY,
  title: '每日计划',
  failureType: DAILY_FAILED,
  housekeeping: false,
  before: ['before_daily_cron', 'tick.daily'],
  after: () => ['after_daily_cron'],
};

export async function dailyWorkflow(input: DailyInput): Promise<DailyResult> {
  return runCadence(plan, input);
}
