import { sqlRows } from '../../../db/sql.js';
import type { VncCloseReason } from '../../../db/models/vnc-session.js';
import { formatDateTime } from '../../../lib/time.js';
import type { DomainDeps } from '../../deps.js';
import { recordServiceEvent } from '../service-events.js';

const REASON_LABELS: Record<VncCloseReason, string> = {
  browser_closed: '浏览器已断开',
  upstream_closed: '上游控制台已断开',
  idle: '空闲超时',
  max_duration: '达到最长会话时间',
  upstream_failed: '上游控制台连接失败',
  protocol_error: '协议错误',
  shutdown: '服务重启',
};

export type VncSessionEnd = {
  sessionId: number;
  serviceId: number;
  userId: number;
  ip: string;
  startedAt: Date;
  reason: VncCloseReason;
  /** Whether the relay reached the upstream console (VNC authentication passed). */
  connected: boolean;
  bytesToBrowser: number;
  bytesFromBrowser: number;
  /** Why the upstream could not be reached (a Chinese message, never upstream text or a secret). */
  failure?: string;
  pluginLogId?: number | null;
};

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h} 小时 ${m} 分 ${s} 秒` : m > 0 ? `${m} 分 ${s} 秒` : `${s} 秒`;
}

/**
 * Ends a console session once: the row's end (guarded by `ended_at IS NULL`) and one service
 * event in the same transaction: who (the user and address), when, how long, why it ended and
 * how many bytes went each way. A session that never reached the upstream is a failed event.
 */
export async function finishVncSession(deps: DomainDeps, end: VncSessionEnd): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const rows = await sqlRows<{ ended_at: Date }>(
      deps,
      `UPDATE vnc_sessions SET ended_at = now(), close_reason = $2, bytes_to_browser = $3, bytes_from_browser = $4
        WHERE id = $1 AND ended_at IS NULL RETURNING ended_at`,
      [end.sessionId, end.reason, end.bytesToBrowser, end.bytesFromBrowser],
      transaction,
    );
    const endedAt = rows[0]?.ended_at;
    if (!endedAt) return;
    const seconds = Math.max(0, Math.round((endedAt.getTime() - end.startedAt.getTime()) / 1000));
    await recordServiceEvent(
      deps,
      {
        serviceId: end.serviceId,
        kind: 'console',
        stage: 'vnc_session',
        status: end.connected ? 'succeeded' : 'failed',
        message: end.connected
          ? `VNC 控制台会话已结束，时长 ${duration(seconds)}（${REASON_LABELS[end.reason]}）`
          : `VNC 控制台连接失败：${end.failure ?? REASON_LABELS[end.reason]}`,
        detail: {
          vnc_session_id: end.sessionId,
          client_ip: end.ip,
          started_at: formatDateTime(end.startedAt),
          ended_at: formatDateTime(endedAt),
          duration_seconds: seconds,
          close_reason: end.reason,
          bytes_to_browser: end.bytesToBrowser,
          bytes_from_browser: end.bytesFromBrowser,
          ...(end.pluginLogId ? { plugin_log_id: end.pluginLogId } : {}),
        },
        operator: { type: 'user', id: end.userId },
      },
      transaction,
    );
  });
}
