import { slotMinute } from '../cadence/contract.js';
import { type CadencePlan, runCadence } from '../cadence/run-cadence.js';
import { HEARTBEAT_FAILED, HEARTBEAT_TASK_KEY, type HeartbeatInput, type HeartbeatResult } from './contract.js';

/**
 * The 15-minute heartbeat. The legacy minute hooks fire on it (the spec: 1- and 5-minute names
 * run at 15-minute granularity): `tick.every_minute` and `tick.every_five_minutes` before the
 * due tasks start, `after_five_minute_cron` after them on every slot, and
 * `after_half_hour_minute_cron` after them on the :00 and :30 slots.
 */
const plan: CadencePlan = {
  kind: 'heartbeat',
  taskKey: HEARTBEAT_TASK_KEY,
  title: '15 分钟心跳',
  failureType: HEARTBEAT_FAILED,
  housekeeping: true,
  before: ['tick.every_minute', 'tick.every_five_minutes'],
  after: (slot) => (slotMinute(slot) % 30 === 0 ? ['after_five_minute_cron', 'after_half_hour_minute_cron'] : ['after_five_minute_cron']),
};

export async function heartbeatWorkflow(input: HeartbeatInput): Promise<HeartbeatResult> {
  return runCadence(plan, input);
}
