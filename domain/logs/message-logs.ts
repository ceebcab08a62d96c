import type { NotificationChannel, NotificationKind, NotificationStatus } from '../../db/models/notification-log.js';
import { maskIdNumbers } from '../../lib/redact.js';
import { sqlParams } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { dayRangeConditions } from './admin-audit.js';
import { listLogRows } from './log-list.js';

/**
 * The SMS log and the mail log: the notification log (`notification_log`, one row per notice
 * and channel, written by the notification jobs when they claim a send) read per channel, with
 * the plugin that sent it. Recipients are stored masked; the error is the plugin's summary,
 * cut and with identity numbers masked. Bodies are never stored.
 */
export type MessageLogQuery = {
  page: number;
  page_size: number;
  scene?: NotificationKind | undefined;
  status?: NotificationStatus | undefined;
  user_id?: number | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
};

export type MessageLogRow = {
  id: number;
  channel: NotificationChannel;
  scene: NotificationKind;
  user_id: number;
  recipient: string;
  subject: string;
  status: NotificationStatus;
  attempts: number;
  plugin_id: number | null;
  plugin_slug: string | null;
  error: string | null;
  created_at: Date;
  sent_at: Date | null;
};

export async function listMessageLogs(deps: DomainDeps, channel: NotificationChannel, query: MessageLogQuery): Promise<{ rows: MessageLogRow[]; total: number }> {
  const { values, param } = sqlParams();
  const conditions = [`n.channel = ${param(channel)}`];
  if (query.scene) conditions.push(`n.kind = ${param(query.scene)}`);
  for (const key of ['status', 'user_id'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`n.${key} = ${param(query[key])}`);
  }
  conditions.push(...dayRangeConditions('n.created_at', query, param));
  const { rows, total } = await listLogRows<MessageLogRow>(deps, {
    select: `n.id::int AS id, n.channel, n.kind AS scene, n.user_id, n.recipient, n.subject, n.status, n.attempts, n.plugin_id,
              p.slug AS plugin_slug, n.error, n.created_at, n.sent_at`,
    from: 'notification_log n LEFT JOIN plugins p ON p.id = n.plugin_id',
    countFrom: 'notification_log n',
    conditions,
    values,
    order: 'n.id DESC',
    paging: query,
  });
  return { rows: rows.map((r) => ({ ...r, error: r.error === null ? null : maskIdNumbers(r.error).slice(0, 200) })), total };
}
