import { QueryTypes, type Transaction } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne } from '../../../../db/sql.js';
import { activateService } from '../../../../domain/upstream-work/provision/host.js';
import { provisionWorkflowId } from '../../../../workflows/provisioning/contract.js';
import { createUser, seedService } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { eventually } from '../../../helpers/wait.js';

/**
 * The activation of the last unfinished services of an order completes it, also when two of its
 * services activate at the same instant (each activation sees the other's service unfinished in
 * its own snapshot; the completion is decided under the order's row lock).
 */
let platform: TestPlatform;
let userId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  userId = (await createUser(platform)).id;
});
afterAll(async () => {
  await platform?.close();
});

/** A paid order with two services being provisioned. */
async function orderOfTwo(): Promise<{ orderId: number; serviceIds: [number, number] }> {
  const first = await seedService(platform, { userId, status: 'provisioning', nextDueAt: null });
  const second = await sqlOne<{ id: number; order_id: number }>(
    platform.deps,
    `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, next_due_at, product_name, hostname, auto_renew)
     SELECT user_id, product_id, order_id, invoice_id, 2, status, product_type, billing_period, price, next_due_at, product_name, hostname || '-2', auto_renew
       FROM services WHERE id = $1 RETURNING id, order_id`,
    [first],
  );
  if (!second) throw new Error('second service not seeded');
  await sqlOne(platform.deps, `UPDATE orders SET status = 'paid', completed_at = NULL WHERE id = $1 RETURNING id`, [second.order_id]);
  return { orderId: second.order_id, serviceIds: [first, second.id] };
}

describe('two services of one order activating at once', () => {
  it('completes the order when each activation took its snapshot before the other committed', async () => {
    const { orderId, serviceIds } = await orderOfTwo();
    const { sequelize } = platform.deps.db;
    // A transaction of the test holds both service rows: both activations start (and read the
    // order's other service as unfinished) and wait on their row; then both go on at once.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = sequelize.transaction(async (transaction: Transaction) => {
      await sequelize.query('SELECT id FROM services WHERE id = ANY($1::int[]) FOR UPDATE', { bind: [serviceIds], transaction, type: QueryTypes.SELECT });
      holding();
      await released;
    });
    await held;
    const activations = Promise.all(serviceIds.map((id) => activateService(platform.deps, id, null, provisionWorkflowId(id))));
    await eventually(async () => {
      const [row] = await sequelize.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%UPDATE services%'`,
        { type: QueryTypes.SELECT },
      );
      return (row?.waiting ?? 0) >= 2 ? true : null;
    });
    release();
    await holder;
    await activations;

    const services = await platform.deps.db.models.Service.findAll({ where: { order_id: orderId } });
    expect(services.map((s) => s.status)).toEqual(['active', 'active']);
    const order = await platform.deps.db.models.Order.findByPk(orderId);
    expect(order?.status).toBe('completed');
    expect(order?.completed_at).toBeInstanceOf(Date);
  });

  it('leaves the order paid while another of its services is unfinished, and completes it with the last', async () => {
    const { orderId, serviceIds } = await orderOfTwo();
    await activateService(platform.deps, serviceIds[0], null, provisionWorkflowId(serviceIds[0]));
    expect((await platform.deps.db.models.Order.findByPk(orderId))?.status).toBe('paid');
    await activateService(platform.deps, serviceIds[1], null, provisionWorkflowId(serviceIds[1]));
    expect((await platform.deps.db.models.Order.findByPk(orderId))?.status).toBe('completed');
  });
});
