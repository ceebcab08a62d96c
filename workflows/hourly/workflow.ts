import { type CadencePlan, runCadence } from '../cadence/run-cadence.js';
import { HOURLY_FAILED, HOURLY_TASK_KEY, type HourlyInput, type HourlyResult } from './contract.js';

/** The hourly run: `tick.hourly`, then the tasks driven by the hourly cadence. */
const plan: CadencePlan = {
  kind: 'hourly',
  taskKey: HOURLY_TASK_KEY,
  title: '每小时计划',
  failureType: HOURLY_FAILED,
  housekeeping: false,
  before: ['tick.hourly'],
  after: () => [],
};

export async function hourlyWorkflow(input: HourlyInput): Promise<HourlyResult> {
  return runCadence(plan, input);
}
