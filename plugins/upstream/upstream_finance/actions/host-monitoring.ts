import { invalidInput, unexpectedResponse } from '../client/upstream-error.js';
import { asArray, asInt, asRecord, asString } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { requireOneOf, requirePositiveInt } from './payload.js';

/** Our metric names → the upstream monitoring page's. */
const METRICS = {
  cpu: 'cpu',
  memory: 'memory',
  disk_read: 'disk_read',
  disk_write: 'disk_write',
  bandwidth_in: 'net_in',
  bandwidth_out: 'net_out',
} as const;
const METRIC_NAMES = Object.keys(METRICS) as Array<keyof typeof METRICS>;
export const MONITORING_POINTS_MAX = 500;

/**
 * Monitoring points of a host: the custom module page `monitoring` (`GET
 * /provision/custom/content` with `Authorization: JWT`, `id`, `key`, `jwt`, plus `metric`,
 * `start`, `end` in unix seconds and `limit`). Points are `{ time (unix seconds), value }`,
 * oldest first, at most `limit`; anything else of the answer stays here.
 */
export const readHostMonitoring: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const metric = requireOneOf(input.payload, 'metric', METRIC_NAMES);
  const from = asInt(input.payload['from']);
  const to = asInt(input.payload['to']);
  const limit = asInt(input.payload['limit']);
  if (from === null || to === null || from < 0 || to < from) throw invalidInput('参数错误：from、to 必须为时间戳且 from 不晚于 to');
  if (limit === null || limit < 1 || limit > MONITORING_POINTS_MAX) throw invalidInput(`参数错误：limit 必须在 1 到 ${MONITORING_POINTS_MAX} 之间`);
  const envelope = await session.call({
    method: 'GET',
    path: '/provision/custom/content',
    query: { id: hostId, key: 'monitoring', metric: METRICS[metric], start: from, end: to, limit },
    auth: 'module_page',
  });
  const data = asRecord(envelope.data);
  if (!data) throw unexpectedResponse('上游监控数据格式不正确');
  const points: Array<{ time: number; value: number }> = [];
  for (const raw of asArray(data['list']).slice(0, limit)) {
    const record = asRecord(raw);
    const time = asInt(record?.['time']);
    const value = Number(asString(record?.['value']) ?? Number.NaN);
    if (time !== null && Number.isFinite(value)) points.push({ time, value });
  }
  points.sort((a, b) => a.time - b.time);
  const unit = asString(data['unit']) ?? '';
  return { message: '已获取上游监控数据', data: { host_id: hostId, metric, unit: unit.slice(0, 16), points } };
};
