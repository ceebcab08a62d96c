import type { Migration } from './types.js';

/**
 * The log tables at ten million rows (issue 35, part 1; docs/operations.md "Log tables at volume").
 *
 * - `api_request_logs` and `plugin_runtime_logs` become range-partitioned by `created_at`, one
 *   partition per calendar month (UTC): `<table>_pYYYYMM`. Their rows are copied in here, into
 *   partitions for every month they span (at least the last twelve) and three months ahead; the
 *   columns, defaults, CHECKs, the id sequence and the foreign key stay, the primary key becomes
 *   (id, created_at) (a partitioned table's unique keys must hold the partition key). Partitions
 *   are made by `log_partition_create(table, month)` (idempotent; a table of its own attached
 *   with ATTACH PARTITION, which takes SHARE UPDATE EXCLUSIVE on the parent: inserts go on), here
 *   and afterwards by the daily task `logs.partition_maintenance`. Retention detaches
 *   (CONCURRENTLY) and drops whole months.
 *   The release before this one keeps working against it: same names, same columns, inserts
 *   without `id`, reads by `id`, its DELETE batches (expand/contract). The copy itself runs under
 *   the renamed table's lock: writers of these two tables wait for it (an upgrade step).
 * - `task_runs`, `notification_log` and `admin_audit_logs` stay plain tables: their UNIQUE keys
 *   are what makes a task run once per slot, a notice go out once, and the audit chain gapless
 *   (`chain_seq`), and none of those holds the time. They are trimmed in batches (the audit never);
 *   they get the indexes their list filters need.
 * - `pg_trgm` and a trigram GIN index on the request log's route: the keyword search.
 * - `admin_audit_chain_checkpoints`: what each daily verification of the audit chain verified
 *   (the last row's `chain_seq` and hash), so the next one starts there; append-only.
 */
export const migration0034LogPartitions: Migration = {
  name: '0034-log-partitions',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE EXTENSION IF NOT EXISTS pg_trgm;

      -- One month's partition of a log table (UTC month): answers whether it was made now.
      CREATE FUNCTION log_partition_create(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        m date := date_trunc('month', month)::date;
        part text := parent || '_p' || to_char(m, 'YYYYMM');
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('log_partition:' || part));
        IF to_regclass(part) IS NOT NULL THEN
          RETURN false;
        END IF;
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part, parent);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part,
          m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
        RETURN true;
      END $$;

      -- The partitions of a log table with their bounds (retention, the maintenance task, tests).
      CREATE FUNCTION log_partitions(parent text)
        RETURNS TABLE (name text, lower_bound timestamptz, upper_bound timestamptz, detach_pending boolean)
        LANGUAGE sql STABLE AS $$
        SELECT c.relname::text,
               (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz,
               (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz,
               i.inhdetachpending
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = parent::regclass
         ORDER BY 2
      $$;

      -- api_request_logs
      ALTER TABLE api_request_logs RENAME TO api_request_logs_unpartitioned;
      ALTER INDEX api_request_logs_pkey RENAME TO api_request_logs_unpartitioned_pkey;
      DROP INDEX api_request_logs_created_idx, api_request_logs_user_idx, api_request_logs_admin_idx;
      CREATE TABLE api_request_logs (LIKE api_request_logs_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
        PARTITION BY RANGE (created_at);
      ALTER TABLE api_request_logs ADD CONSTRAINT api_request_logs_pkey PRIMARY KEY (id, created_at);
      ALTER SEQUENCE api_request_logs_id_seq OWNED BY api_request_logs.id;
      SELECT log_partition_create('api_request_logs', m::date)
        FROM generate_series(
          date_trunc('month', LEAST(COALESCE((SELECT min(created_at) FROM api_request_logs_unpartitioned), now()), now() - interval '12 months') AT TIME ZONE 'UTC'),
          date_trunc('month', GREATEST(COALESCE((SELECT max(created_at) FROM api_request_logs_unpartitioned), now()), now()) AT TIME ZONE 'UTC') + interval '3 months',
          interval '1 month') m;
      INSERT INTO api_request_logs (id, method, route, status, code, duration_ms, user_id, admin_id, ip, request_id, created_at)
        SELECT id, method, route, status, code, duration_ms, user_id, admin_id, ip, request_id, created_at FROM api_request_logs_unpartitioned;
      DROP TABLE api_request_logs_unpartitioned;
      CREATE INDEX api_request_logs_created_idx ON api_request_logs (created_at DESC, id DESC);
      CREATE INDEX api_request_logs_user_idx ON api_request_logs (user_id, created_at DESC, id DESC) WHERE user_id IS NOT NULL;
      CREATE INDEX api_request_logs_admin_idx ON api_request_logs (admin_id, created_at DESC, id DESC) WHERE admin_id IS NOT NULL;
      CREATE INDEX api_request_logs_route_idx ON api_request_logs (route, created_at DESC, id DESC);
      CREATE INDEX api_request_logs_status_idx ON api_request_logs (status, created_at DESC, id DESC);
      CREATE INDEX api_request_logs_code_idx ON api_request_logs (code, created_at DESC, id DESC);
      CREATE INDEX api_request_logs_method_idx ON api_request_logs (method, created_at DESC, id DESC);
      CREATE INDEX api_request_logs_ip_idx ON api_request_logs (ip, created_at DESC, id DESC);
      CREATE INDEX api_request_logs_request_idx ON api_request_logs (request_id);
      -- Slow requests (min_duration_ms of a second or more: what one looks for), in the list's order.
      CREATE INDEX api_request_logs_slow_idx ON api_request_logs (created_at DESC, id DESC, duration_ms) WHERE duration_ms >= 1000;
      CREATE INDEX api_request_logs_route_trgm_idx ON api_request_logs USING gin (route gin_trgm_ops);

      -- plugin_runtime_logs
      ALTER TABLE plugin_runtime_logs RENAME TO plugin_runtime_logs_unpartitioned;
      ALTER INDEX plugin_runtime_logs_pkey RENAME TO plugin_runtime_logs_unpartitioned_pkey;
      DROP INDEX plugin_runtime_logs_created_idx, plugin_runtime_logs_plugin_idx, plugin_runtime_logs_domain_idx,
        plugin_runtime_logs_status_idx, plugin_runtime_logs_action_idx;
      ALTER TABLE plugin_runtime_logs_unpartitioned DROP CONSTRAINT plugin_runtime_logs_plugin_id_fkey;
      CREATE TABLE plugin_runtime_logs (LIKE plugin_runtime_logs_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
        PARTITION BY RANGE (created_at);
      ALTER TABLE plugin_runtime_logs ADD CONSTRAINT plugin_runtime_logs_pkey PRIMARY KEY (id, created_at);
      ALTER SEQUENCE plugin_runtime_logs_id_seq OWNED BY plugin_runtime_logs.id;
      SELECT log_partition_create('plugin_runtime_logs', m::date)
        FROM generate_series(
          date_trunc('month', LEAST(COALESCE((SELECT min(created_at) FROM plugin_runtime_logs_unpartitioned), now()), now() - interval '12 months') AT TIME ZONE 'UTC'),
          date_trunc('month', GREATEST(COALESCE((SELECT max(created_at) FROM plugin_runtime_logs_unpartitioned), now()), now()) AT TIME ZONE 'UTC') + interval '3 months',
          interval '1 month') m;
      INSERT INTO plugin_runtime_logs SELECT * FROM plugin_runtime_logs_unpartitioned;
      DROP TABLE plugin_runtime_logs_unpartitioned;
      ALTER TABLE plugin_runtime_logs ADD CONSTRAINT plugin_runtime_logs_plugin_id_fkey
        FOREIGN KEY (plugin_id) REFERENCES plugins(id) ON DELETE SET NULL;
      CREATE INDEX plugin_runtime_logs_created_idx ON plugin_runtime_logs (created_at DESC, id DESC);
      CREATE INDEX plugin_runtime_logs_plugin_idx ON plugin_runtime_logs (plugin_id, created_at DESC, id DESC);
      CREATE INDEX plugin_runtime_logs_domain_idx ON plugin_runtime_logs (domain, created_at DESC, id DESC);
      CREATE INDEX plugin_runtime_logs_status_idx ON plugin_runtime_logs (status, created_at DESC, id DESC);
      CREATE INDEX plugin_runtime_logs_action_idx ON plugin_runtime_logs (action, created_at DESC, id DESC);

      -- The plain log tables: an index per list filter, in the list's order.
      CREATE INDEX task_runs_list_idx ON task_runs (started_at DESC, id DESC);
      CREATE INDEX task_runs_trigger_idx ON task_runs (trigger, started_at DESC, id DESC);
      CREATE INDEX task_runs_plugin_slug_idx ON task_runs (plugin_slug, started_at DESC, id DESC) WHERE plugin_slug IS NOT NULL;
      CREATE INDEX notification_log_channel_idx ON notification_log (channel, id DESC);
      CREATE INDEX notification_log_kind_idx ON notification_log (kind, id DESC);
      CREATE INDEX notification_log_status_idx ON notification_log (status, id DESC);
      CREATE INDEX notification_log_entity_idx ON notification_log (entity_type, entity_id, id DESC);
      CREATE INDEX admin_audit_logs_route_idx ON admin_audit_logs (route, id DESC);
      CREATE INDEX admin_audit_logs_method_idx ON admin_audit_logs (method, id DESC);
      CREATE INDEX admin_audit_logs_source_idx ON admin_audit_logs (source, id DESC);

      CREATE TABLE admin_audit_chain_checkpoints (
        id BIGSERIAL PRIMARY KEY,
        chain_seq BIGINT NOT NULL,
        row_hash CHAR(64) NOT NULL,
        row_id BIGINT,
        checked BIGINT NOT NULL,
        full_check BOOLEAN NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TRIGGER admin_audit_chain_checkpoints_no_change BEFORE UPDATE OR DELETE ON admin_audit_chain_checkpoints
        FOR EACH ROW EXECUTE FUNCTION admin_audit_logs_append_only();
      CREATE TRIGGER admin_audit_chain_checkpoints_no_truncate BEFORE TRUNCATE ON admin_audit_chain_checkpoints
        FOR EACH STATEMENT EXECUTE FUNCTION admin_audit_logs_append_only();
    `);
  },
  async down() {
    throw new Error('0034-log-partitions cannot be undone: the partitioned tables stay');
  },
};
