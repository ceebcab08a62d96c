import { sqlRows, type Tx } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';

/** The LISTEN/NOTIFY channel that wakes the relay; the payload is the delay (ms) before the new row is due. */
export const OUTBOX_CHANNEL = 'outbox';

/** What a row promises (the CHECK of migration 0013, extended by 0018, 0019 and 0027, lists the same). */
export const INTENT_KINDS = [
  'start_fulfilment',
  'start_payment',
  'start_refund',
  'decide_provisioning',
  'decide_service_order',
  'start_verification',
  'signal_verification',
  'ticket_notice',
  'signal_payment',
] as const;
export type IntentKind = (typeof INTENT_KINDS)[number];

/**
 * A row whose writer tries it at once after the commit (a QR payment's workflow start, an admin
 * decision, a refund's start) is left to that writer this long before the relay takes it, so the
 * two rarely do the same call twice; the writer's own try is bounded by REQUEST_DEADLINE_MS (2 s).
 * Nothing depends on the writer: if it dies or cannot reach Temporal, the relay does it after
 * this. A payment's follow-ups (`start_fulfilment`, `signal_payment`) have no such writer: they are
 * due at once and only the relay performs them.
 */
export const TRY_NOW_GRACE_MS = 3_000;

/** Keys are derived from business data: the same promise, made twice, is one row. */
export const intentKeys = {
  fulfilment: (invoiceId: number) => `${FULFILMENT_KEY_PREFIX}${invoiceId}`,
  payment: (paymentNo: string) => `payment:${paymentNo}`,
  /** One "look now" per paid payment (its notification's settlement). */
  paymentSignal: (paymentNo: string) => `payment-notified:${paymentNo}`,
  refund: (refundNo: string) => `refund:${refundNo}`,
  /** One decision per wait: the wait is told apart by when the row entered `awaiting_admin`. */
  provisioningDecision: (serviceId: number, waitingSince: Date | null) => `decide:provision:${serviceId}:${waitingSince?.getTime() ?? 0}`,
  verificationStart: (attemptNo: string) => `verification:${attemptNo}`,
  /** One "look now" per attempt: later callbacks for it change nothing (the workflow polls anyway). */
  verificationSignal: (attemptNo: string) => `verification-callback:${attemptNo}`,
  serviceOrderDecision: (invoiceId: number, waitingSince: Date | null) => `decide:service-order:${invoiceId}:${waitingSince?.getTime() ?? 0}`,
};

/** The settlement writes its fulfilment row inside its own statement (`settleInvoice`), with this prefix. */
export const FULFILMENT_KEY_PREFIX = 'fulfil:';

export type Intent = {
  kind: IntentKind;
  key: string;
  payload: Record<string, unknown>;
  /** When the relay may take it: 0 at once, TRY_NOW_GRACE_MS when the writer tries it itself first. */
  delayMs: number;
};

/**
 * The one way an outbox row is written: `rows` gives (kind, key, payload, next_attempt_at) as
 * VALUES or a SELECT; a key recorded before changes nothing; each new row wakes the relay
 * (`pg_notify(channel, delay)`, delivered only on commit). `recordIntent` runs it for one row;
 * the settlement runs it as a CTE of its one statement (`fulfilmentIntentSql`).
 */
function insertIntentsSql(rows: string, channel: string, delayMs: string): string {
  return `INSERT INTO outbox (kind, key, payload, next_attempt_at) ${rows}
     ON CONFLICT (key) DO NOTHING RETURNING id, pg_notify(${channel}, ${delayMs}) AS notified`;
}

const RECORD_INTENT = insertIntentsSql('VALUES ($1, $2, $3, now() + make_interval(secs => $4::int / 1000.0))', '$5', '$4::int::text');

/**
 * Records an intent in the caller's transaction (alone, without one) and wakes the relay once it
 * commits (`pg_notify` is delivered only on commit). A key recorded before changes nothing;
 * answers whether the row is new.
 */
export async function recordIntent(deps: DomainDeps, intent: Intent, tx?: Tx): Promise<boolean> {
  const rows = await sqlRows<{ id: string }>(deps, RECORD_INTENT, [intent.kind, intent.key, JSON.stringify(intent.payload), Math.max(0, Math.round(intent.delayMs)), OUTBOX_CHANNEL], tx);
  return rows.length > 0;
}

/** A paid invoice's fulfilment promise (`start_fulfilment`, key `fulfil:<invoice id>`, due at once), as `recordIntent` writes it. */
export function fulfilmentIntent(invoiceId: number): Intent {
  return { kind: 'start_fulfilment', key: intentKeys.fulfilment(invoiceId), payload: { invoice_id: invoiceId }, delayMs: 0 };
}

/**
 * The same row as the data-modifying CTE of the settlement's one statement (a payment path keeps
 * one round trip): for each invoice `from` selects (its `id`), with the key prefix and channel as
 * the statement's parameters (`FULFILMENT_KEY_PREFIX`, `OUTBOX_CHANNEL`).
 */
export function fulfilmentIntentSql(from: string, keyPrefix: string, channel: string): string {
  return insertIntentsSql(`SELECT 'start_fulfilment', ${keyPrefix} || id, jsonb_build_object('invoice_id', id), now() FROM ${from}`, channel, "'0'");
}

/** Marks an intent done (by whoever performed it: the writer's own try, the relay, a workflow's activity); `note` says why when nothing was needed. */
export async function markIntentDone(deps: DomainDeps, key: string, note: string | null = null): Promise<void> {
  await sqlRows(deps, 'UPDATE outbox SET done_at = now(), last_error = $2, updated_at = now() WHERE key = $1 AND done_at IS NULL RETURNING id', [key, note]);
}

/** The recorded intent under a key (its payload and whether it is done), or null. */
export async function findIntent(deps: DomainDeps, key: string): Promise<{ kind: IntentKind; payload: Record<string, unknown>; done: boolean } | null> {
  const [row] = await sqlRows<{ kind: IntentKind; payload: Record<string, unknown>; done: boolean }>(
    deps,
    'SELECT kind, payload, done_at IS NOT NULL AS done FROM outbox WHERE key = $1',
    [key],
  );
  return row ?? null;
}

/**
 * An error as `last_error`: its name and message, one line, at most 300 characters, with
 * anything that looks like credentials in an address or a bearer token removed. Our errors and
 * Temporal's carry no secrets; this keeps it so if one ever quotes a connection string.
 */
export function shortError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text
    .replace(/\/\/[^\s/@:]+:[^\s/@]+@/g, '//***@')
    .replace(/\b(bearer|token|password|secret|key)(["'\s:=]+)\S+/gi, '$1$2***')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
}
