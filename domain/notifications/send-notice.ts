import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../db/models/notification-log.js';
import { AppError } from '../../lib/errors.js';
import { invokePlugin, type PluginInvocation } from '../../plugins/runtime/invoke.js';
import { resolvePluginTarget } from '../../plugins/runtime/resolve-target.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { maskEmail, maskPhone } from './mask-recipient.js';
import type { ChannelOutcome, Notice, NoticeOutcome } from './notice.js';

/** A notice the plugin answered as not sent is tried again on later runs, at most this many times in all. */
export const MAX_NOTICE_ATTEMPTS = 3;

const SEND_TIMEOUT_MS = 30_000;

export type ChannelAvailability = Record<NotificationChannel, boolean>;

/**
 * Whether a mail and an SMS plugin are bound (default scene) and enabled. Without one, no claim
 * is written for that channel, so the notices still due go out once a plugin is configured.
 */
export async function availableChannels(deps: DomainDeps): Promise<ChannelAvailability> {
  const check = async (domain: NotificationChannel) =>
    resolvePluginTarget(deps, domain, {}).then(
      () => true,
      () => false,
    );
  return { mail: await check('mail'), sms: await check('sms') };
}

type Claim = { id: string; attempts: number };

/** The address a notice goes to on a channel (null: none, so no claim is ever written). */
function addressOn(notice: Notice, channel: NotificationChannel): string | null {
  return channel === 'mail' ? notice.user.email : notice.user.phone;
}

/** The log's occasion of a notice (the column's width; the claim stores the same). */
function occasionOf(notice: Notice): string {
  return notice.occasion.slice(0, 64);
}

/**
 * The notices among `notices` that `claim` could still claim on some channel: an available
 * channel with an address and no log row, or only a `failed` one below MAX_NOTICE_ATTEMPTS (the
 * claim's own condition). One statement for the whole batch (through the log's UNIQUE key), so a
 * task that re-offers recent notices pays per notice still due, not two claims per notice per run.
 */
export async function pendingNotices<N extends Notice>(deps: DomainDeps, notices: readonly N[], channels: ChannelAvailability): Promise<N[]> {
  const wanted = notices.flatMap((notice, index) => NOTIFICATION_CHANNELS.filter((c) => channels[c] && addressOn(notice, c)).map((channel) => ({ notice, index, channel })));
  if (wanted.length === 0) return [];
  const open = await sqlRows<{ i: number }>(
    deps,
    `SELECT w.i FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[]) AS w(i, kind, channel, entity_type, entity_id, occasion)
      WHERE NOT EXISTS (
        SELECT 1 FROM notification_log l
         WHERE l.kind = w.kind AND l.channel = w.channel AND l.entity_type = w.entity_type AND l.entity_id = w.entity_id AND l.occasion = w.occasion
           AND NOT (l.status = 'failed' AND l.attempts < $7))`,
    [
      wanted.map((w) => w.index),
      wanted.map((w) => w.notice.kind),
      wanted.map((w) => w.channel),
      wanted.map((w) => w.notice.entityType),
      wanted.map((w) => w.notice.entityId),
      wanted.map((w) => occasionOf(w.notice)),
      MAX_NOTICE_ATTEMPTS,
    ],
  );
  const due = new Set(open.map((r) => r.i));
  return notices.filter((_, index) => due.has(index));
}

/**
 * Claims the notice on one channel in its own committed statement, before anything is sent: a
 * new row `sending`, or a `failed` one below the attempt limit back to `sending`. Answers null
 * when the notice was sent, is being sent, ended unknown, or failed for good: never twice.
 */
async function claim(deps: DomainDeps, notice: Notice, channel: NotificationChannel, recipient: string, taskRunId: number | null): Promise<Claim | null> {
  return sqlOne<Claim>(
    deps,
    `INSERT INTO notification_log (kind, channel, entity_type, entity_id, occasion, user_id, recipient, subject, status, attempts, task_run_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'sending', 1, $9)
     ON CONFLICT ON CONSTRAINT notification_log_once DO UPDATE
       SET status = 'sending', attempts = notification_log.attempts + 1, error = NULL, recipient = EXCLUDED.recipient,
           task_run_id = EXCLUDED.task_run_id, updated_at = now()
       WHERE notification_log.status = 'failed' AND notification_log.attempts < $10
     RETURNING id, attempts`,
    [notice.kind, channel, notice.entityType, notice.entityId, occasionOf(notice), notice.user.id, recipient, notice.subject.slice(0, 200), taskRunId, MAX_NOTICE_ATTEMPTS],
  );
}

async function finish(deps: DomainDeps, id: string, status: 'sent' | 'failed' | 'unknown', detail: { pluginId?: number; messageId?: string | null; error?: string | null }) {
  await sqlOne(
    deps,
    `UPDATE notification_log SET status = $2::varchar, sent_at = CASE WHEN $2::varchar = 'sent' THEN now() END, plugin_id = COALESCE($3, plugin_id),
        provider_message_id = $4, error = $5, updated_at = now()
     WHERE id = $1 RETURNING id`,
    [id, status, detail.pluginId ?? null, detail.messageId?.slice(0, 191) ?? null, detail.error?.slice(0, 255) ?? null],
  );
}

function invokeChannel(deps: DomainDeps, notice: Notice, channel: NotificationChannel, traceId: string): Promise<PluginInvocation> {
  const actor = SYSTEM_ACTOR;
  if (channel === 'mail') {
    return invokePlugin(deps, {
      domain: 'mail',
      action: 'mail.send',
      payload: { to: notice.user.email, subject: notice.subject, text: notice.text },
      actor,
      traceId,
      timeoutMs: SEND_TIMEOUT_MS,
    });
  }
  return invokePlugin(deps, {
    domain: 'sms',
    action: 'sms.send',
    payload: { phone: notice.user.phone, scene: notice.sms.scene, params: notice.sms.params },
    actor,
    traceId,
    timeoutMs: SEND_TIMEOUT_MS,
  });
}

async function sendOnChannel(
  deps: DomainDeps,
  notice: Notice,
  channel: NotificationChannel,
  available: boolean,
  context: { taskRunId: number | null; traceId: string },
): Promise<ChannelOutcome> {
  const address = addressOn(notice, channel);
  if (!address) return 'no_recipient';
  if (!available) return 'unavailable';
  const claimed = await claim(deps, notice, channel, channel === 'mail' ? maskEmail(address) : maskPhone(address), context.taskRunId);
  if (!claimed) return 'already';
  let result: PluginInvocation;
  try {
    result = await invokeChannel(deps, notice, channel, context.traceId);
  } catch (error) {
    // Resolution failed before anything was sent (plugin disabled meanwhile): a later run may try again.
    const message = error instanceof AppError ? error.message : '发送失败，请检查通知插件';
    if (!(error instanceof AppError)) deps.logger.error({ err: error, notice: notice.kind, channel }, 'notice send failed');
    await finish(deps, claimed.id, 'failed', { error: message });
    return 'failed';
  }
  if (result.success) {
    const messageId = result.data['message_id'];
    await finish(deps, claimed.id, 'sent', { pluginId: result.pluginId, messageId: typeof messageId === 'string' ? messageId : null });
    return 'sent';
  }
  if (result.status === 'timeout') {
    // The plugin may have handed the message over before the timeout: at most once, so never again.
    await finish(deps, claimed.id, 'unknown', { pluginId: result.pluginId, error: '发送超时，结果未知，不再重发' });
    return 'unknown';
  }
  await finish(deps, claimed.id, 'failed', { pluginId: result.pluginId, error: result.message });
  return 'failed';
}

/**
 * Sends a notice by mail and by SMS, each at most once: the claim row is committed before the
 * plugin is called, so a rerun, an activity retry or a crash after sending never sends it
 * again (a crash leaves it `sending`, later marked `unknown`). A plugin's explicit failure is
 * retried on later runs up to MAX_NOTICE_ATTEMPTS. Users without an address on a channel, and
 * channels without an enabled plugin, are skipped without a claim.
 */
export async function sendNotice(
  deps: DomainDeps,
  notice: Notice,
  channels: ChannelAvailability,
  context: { taskRunId: number | null },
): Promise<NoticeOutcome> {
  const traceId = `notice:${notice.kind}:${notice.entityType}:${notice.entityId}`.slice(0, 64);
  return {
    mail: await sendOnChannel(deps, notice, 'mail', channels.mail, { ...context, traceId }),
    sms: await sendOnChannel(deps, notice, 'sms', channels.sms, { ...context, traceId }),
  };
}

/** Claims left `sending` this long ago belong to a crashed run: their outcome is unknown and they are never sent again. */
export async function closeAbandonedClaims(deps: DomainDeps, olderThanMinutes = 60): Promise<number> {
  const row = await sqlOne<{ n: number }>(
    deps,
    `WITH closed AS (
       UPDATE notification_log SET status = 'unknown', error = '发送过程中断，结果未知，不再重发', updated_at = now()
        WHERE status = 'sending' AND updated_at < now() - make_interval(mins => $1) RETURNING 1
     ) SELECT count(*)::int AS n FROM closed`,
    [olderThanMinutes],
  );
  return row?.n ?? 0;
}
