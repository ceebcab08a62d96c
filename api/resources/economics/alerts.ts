import { z } from '@hono/zod-openapi';
import { ALERT_KIND_LABELS, ALERT_KINDS, type AdminAlert } from '../../../domain/economics/alerts.js';
import { formatDateTime } from '../../../lib/time.js';
import { dateTimeString } from '../../schemas.js';

export const adminAlertSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(ALERT_KINDS).openapi({ description: ALERT_KINDS.join('、') }),
    kind_label: z.string(),
    severity: z.enum(['info', 'warning', 'critical']),
    title: z.string(),
    message: z.string(),
    subject: z.record(z.string(), z.unknown()).openapi({ description: '相关对象的编号（商品、供应商、服务、记录等）' }),
    state: z.enum(['open', 'acknowledged']),
    acknowledged_by: z.number().int().nullable(),
    acknowledged_at: dateTimeString.nullable(),
    created_at: dateTimeString,
  })
  .openapi('AdminAlert');

export function adminAlertResource(row: AdminAlert): z.infer<typeof adminAlertSchema> {
  return {
    id: Number(row.id),
    kind: row.kind,
    kind_label: ALERT_KIND_LABELS[row.kind] ?? row.kind,
    severity: row.severity,
    title: row.title,
    message: row.message,
    subject: row.subject,
    state: row.acknowledged_at ? 'acknowledged' : 'open',
    acknowledged_by: row.acknowledged_by,
    acknowledged_at: row.acknowledged_at ? formatDateTime(row.acknowledged_at) : null,
    created_at: formatDateTime(row.created_at) ?? '',
  };
}
