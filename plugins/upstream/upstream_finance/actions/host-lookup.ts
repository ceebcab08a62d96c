import type { FinanceSession } from '../client/session.js';
import { unexpectedResponse } from '../client/upstream-error.js';
import { asRecord, type UnknownRecord } from '../read.js';

export type HostHeader = { hostData: UnknownRecord; data: UnknownRecord };

/** `GET /host/header?host_id=N&source=API` → the raw `data` and `data.host_data` (callers normalise them). */
export async function fetchHostHeader(session: FinanceSession, hostId: number): Promise<HostHeader> {
  const envelope = await session.call({ method: 'GET', path: '/host/header', query: { host_id: hostId, source: 'API' } });
  const data = asRecord(envelope.data) ?? {};
  const hostData = asRecord(data['host_data']);
  if (!hostData) throw unexpectedResponse('上游主机详情缺少主机数据');
  return { hostData, data };
}

export async function fetchHostData(session: FinanceSession, hostId: number): Promise<UnknownRecord> {
  return (await fetchHostHeader(session, hostId)).hostData;
}
