import type { FinanceSession } from '../client/session.js';
import { UpstreamError } from '../client/upstream-error.js';
import { asRecord, type UnknownRecord } from '../read.js';

/** `GET /host/header?host_id=N&source=API` → the raw `data.host_data` (callers normalise it). */
export async function fetchHostData(session: FinanceSession, hostId: number): Promise<UnknownRecord> {
  const envelope = await session.call({ method: 'GET', path: '/host/header', query: { host_id: hostId, source: 'API' } });
  const hostData = asRecord(asRecord(envelope.data)?.['host_data']);
  if (!hostData) throw new UpstreamError({ reason: 'invalid_response', kind: 'permanent', message: '上游主机详情缺少主机数据' });
  return hostData;
}
