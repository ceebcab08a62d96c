import { describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createMigrator } from '../../db/migrate.js';
import { verifyAuditChain } from '../../domain/logs/audit-chain.js';
import { migrationDatabase } from '../helpers/migration-database.js';

const target = migrationDatabase();

describe('migration 0023 (audit chain)', () => {
  it('chains the rows written before it in id order, and rows after it continue the chain', async () => {
    const migrator = createMigrator(target.db.sequelize);
    await migrator.up({ to: '0022-actor-types' });
    await target.db.sequelize.query(`
      INSERT INTO admin_audit_logs (source, admin_id, admin_name, method, route, status, code, action, request, request_id)
        VALUES ('request', 1, 'root', 'POST', '/api/v2/admin/users', 200, 0, 'create', '{"body":{"nickname":"旧"}}', 'r1');
      INSERT INTO catalogue_audit_logs (entity_type, entity_id, action, changes, operator_id, operator_name)
        VALUES ('menu', 7, 'create', '{"name":{"old":null,"new":"菜单"}}', 1, 'root');
      INSERT INTO admin_audit_logs (source, admin_id, admin_name, method, route, status, code, action, request_id)
        VALUES ('request', 1, 'root', 'DELETE', '/api/v2/admin/users/{user}', 404, 40400, 'delete', 'r2');
    `);
    await migrator.up();

    const rows = await target.db.sequelize.query<{ id: string; chain_seq: string; prev_hash: string; row_hash: string }>(
      'SELECT a.id::text AS id, a.chain_seq::text AS chain_seq, a.prev_hash, a.row_hash FROM admin_audit_logs a ORDER BY a.id',
      { type: QueryTypes.SELECT },
    );
    expect(rows.map((r) => Number(r.chain_seq))).toEqual([1, 2, 3]);
    expect(rows[0]?.prev_hash).toBe('0'.repeat(64));
    expect(rows[1]?.prev_hash).toBe(rows[0]?.row_hash);
    expect(rows[2]?.prev_hash).toBe(rows[1]?.row_hash);
    expect(await verifyAuditChain({ db: target.db })).toMatchObject({ intact: true, checked: 3, head: { chain_seq: 3, row_hash: rows[2]?.row_hash } });

    await target.db.sequelize.query(`INSERT INTO admin_audit_logs (source, admin_name, action) VALUES ('request', 'root', 'update')`);
    expect(await verifyAuditChain({ db: target.db })).toMatchObject({ intact: true, checked: 4, head: { chain_seq: 4 } });
    // The chain columns are the database's: what a writer passes is overwritten.
    await target.db.sequelize.query(`INSERT INTO admin_audit_logs (source, admin_name, action, chain_seq, prev_hash, row_hash) VALUES ('request', 'x', 'update', 99, $1, $1)`, {
      bind: ['f'.repeat(64)],
    });
    expect(await verifyAuditChain({ db: target.db })).toMatchObject({ intact: true, checked: 5 });
  });
});
