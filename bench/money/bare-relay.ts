// The bare relay of the money bench's baseline, in a child process beside our relay
// (bench/money/relay-child.ts): what our relay does for a payment, without the platform. It takes
// the baseline's outbox rows (written by bench/lib/bare-money-sql.ts, never due for our relay:
// `next_attempt_at` 'infinity', woken on channel `bare_outbox`), claims them in batches with
// FOR UPDATE SKIP LOCKED as ours does, keeps as many in flight as ours (OUTBOX_RELAY_CONCURRENCY),
// and for each row makes one Temporal call on the same server: a fulfilment row starts one trivial
// workflow (`bare-fulfil:<invoice id>`, same id policies, no search attributes, nothing runs it),
// a payment signal row signals the payment's workflow as ours does. Then one statement records the
// dispatch (`invoices.dispatched_at`) and marks the row done, so the bench reads commit → start
// from the same columns on both sides. No domain code, no settings, no logger: pg and
// @temporalio/client only (and the setting's schema, for its default). Prints `"bare relay started"` once it listens; SIGTERM stops it.
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import pg from 'pg';
import { envSchema } from '../../lib/config.js';
import { invoicePaymentWorkflowId, paymentNotifiedSignal } from '../../workflows/invoice-payment/contract.js';

/** The channel the bare SQL notifies (ours is `outbox`: neither relay is woken by the other side's rows). */
export const BARE_OUTBOX_CHANNEL = 'bare_outbox';

const CLAIM = `UPDATE outbox o SET attempts = 1, updated_at = now()
    FROM (SELECT id FROM outbox WHERE done_at IS NULL AND next_attempt_at = 'infinity' AND attempts = 0 ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) due
   WHERE o.id = due.id
  RETURNING o.id, o.kind, o.payload`;
const DONE = `WITH dispatched AS (UPDATE invoices SET dispatched_at = now(), updated_at = now() WHERE id = $2 AND dispatched_at IS NULL RETURNING id)
  UPDATE outbox SET done_at = now(), updated_at = now() WHERE id = $1 AND done_at IS NULL`;

type Row = { id: string; kind: string; payload: { invoice_id?: number; invoice_no?: string } };

async function main(): Promise<void> {
  // The same setting and default as ours (lib/config.ts).
  const concurrency = envSchema.shape.OUTBOX_RELAY_CONCURRENCY.parse(process.env.OUTBOX_RELAY_CONCURRENCY);
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
  pool.on('error', (err) => console.error(`pool error: ${err.message}`));
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });

  const perform = async (row: Row): Promise<void> => {
    try {
      if (row.kind === 'start_fulfilment') {
        await client.workflow.start('bareFulfilment', {
          workflowId: `bare-fulfil:${row.payload.invoice_id}`,
          taskQueue: 'bare-fulfilment',
          args: [{ invoiceId: row.payload.invoice_id }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } else if (row.kind === 'signal_payment') {
        await client.workflow.getHandle(invoicePaymentWorkflowId(String(row.payload.invoice_no))).signal(paymentNotifiedSignal);
      }
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) && !(err instanceof WorkflowNotFoundError)) throw err;
    }
    await pool.query(DONE, [row.id, row.kind === 'start_fulfilment' ? row.payload.invoice_id : null]);
  };

  // The same pass as ours (domain/outbox/relay.ts): claim as many rows as there are free places,
  // again once a quarter of them are free, claim again on a wake-up that came meanwhile.
  let inFlight = 0;
  let running = false;
  let again = false;
  let freed: (() => void) | null = null;
  const pass = async (): Promise<void> => {
    const refillAt = Math.max(1, Math.floor(concurrency / 4));
    let exhausted = false;
    for (;;) {
      const free = concurrency - inFlight;
      const more = () => {
        const came = again;
        again = false;
        return came;
      };
      if ((inFlight === 0 || free >= refillAt) && (!exhausted || more())) {
        const rows = (await pool.query<Row>(CLAIM, [free])).rows;
        exhausted = rows.length < free;
        for (const row of rows) {
          inFlight += 1;
          void perform(row)
            .catch((err: unknown) => console.error(`bare relay: ${err instanceof Error ? err.message : String(err)}`))
            .finally(() => {
              inFlight -= 1;
              freed?.();
            });
        }
        if (!exhausted) continue;
      }
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => (freed = resolve));
      freed = null;
    }
  };
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void pass()
      .catch((err: unknown) => console.error(`bare relay pass: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };

  const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await listener.connect();
  listener.on('notification', run);
  await listener.query(`LISTEN ${BARE_OUTBOX_CHANNEL}`);
  const poll = setInterval(run, 3_000);
  console.log('"bare relay started"');

  const stop = async () => {
    clearInterval(poll);
    await listener.end().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

await main();
