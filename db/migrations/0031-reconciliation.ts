import type { Migration } from './types.js';

/**
 * Reconciliation with the supplier (docs/economics.md): one `reconciliation_runs`
 * row per supplier and run (what was compared, counts), and `reconciliation_findings`, one row per
 * thing seen wrong, keyed by (supplier, kind, subject) so a daily run moves `last_seen_at` instead
 * of adding a row. `ours`/`theirs` hold what each side showed (never a password). A finding no
 * longer seen is resolved by the run (`resolved_by_type = 'system'`); admins acknowledge or
 * resolve through guarded updates (audited by the admin audit).
 */
export const migration0031Reconciliation: Migration = {
  name: '0031-reconciliation',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE reconciliation_runs (
        id BIGSERIAL PRIMARY KEY,
        supplier_id INTEGER NOT NULL REFERENCES suppliers (id) ON DELETE CASCADE,
        task_run_id BIGINT,
        status VARCHAR(16) NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
        started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        finished_at TIMESTAMPTZ,
        hosts_compared BOOLEAN NOT NULL DEFAULT false,
        bills_compared BOOLEAN NOT NULL DEFAULT false,
        note VARCHAR(255) NOT NULL DEFAULT '',
        upstream_hosts INTEGER NOT NULL DEFAULT 0 CHECK (upstream_hosts >= 0),
        upstream_bills INTEGER NOT NULL DEFAULT 0 CHECK (upstream_bills >= 0),
        local_services INTEGER NOT NULL DEFAULT 0 CHECK (local_services >= 0),
        findings_seen INTEGER NOT NULL DEFAULT 0 CHECK (findings_seen >= 0),
        findings_opened INTEGER NOT NULL DEFAULT 0 CHECK (findings_opened >= 0),
        findings_resolved INTEGER NOT NULL DEFAULT 0 CHECK (findings_resolved >= 0),
        error VARCHAR(255),
        CHECK ((status = 'running') = (finished_at IS NULL))
      );
      CREATE INDEX reconciliation_runs_supplier_idx ON reconciliation_runs (supplier_id, id DESC);

      CREATE TABLE reconciliation_findings (
        id BIGSERIAL PRIMARY KEY,
        supplier_id INTEGER NOT NULL REFERENCES suppliers (id) ON DELETE CASCADE,
        kind VARCHAR(32) NOT NULL CHECK (kind IN ('unknown_upstream_host', 'missing_upstream', 'upstream_suspended',
          'upstream_expired', 'due_date_mismatch', 'unmatched_upstream_charge')),
        subject_key VARCHAR(64) NOT NULL CHECK (length(subject_key) > 0),
        service_id INTEGER REFERENCES services (id) ON DELETE SET NULL,
        upstream_host_id BIGINT,
        upstream_bill_id BIGINT,
        amount NUMERIC(14, 2),
        ours JSONB NOT NULL DEFAULT '{}',
        theirs JSONB NOT NULL DEFAULT '{}',
        state VARCHAR(16) NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'acknowledged', 'resolved')),
        first_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        times_seen INTEGER NOT NULL DEFAULT 1 CHECK (times_seen >= 1),
        last_run_id BIGINT NOT NULL REFERENCES reconciliation_runs (id) ON DELETE CASCADE,
        acknowledged_at TIMESTAMPTZ,
        acknowledged_by INTEGER,
        resolved_at TIMESTAMPTZ,
        resolved_by_type VARCHAR(16) CHECK (resolved_by_type IN ('admin', 'system')),
        resolved_by_id INTEGER,
        note VARCHAR(200) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT reconciliation_findings_subject_once UNIQUE (supplier_id, kind, subject_key),
        CHECK ((state = 'resolved') = (resolved_at IS NOT NULL)),
        CHECK ((resolved_at IS NULL) = (resolved_by_type IS NULL)),
        CHECK (state <> 'acknowledged' OR acknowledged_at IS NOT NULL),
        CHECK (upstream_host_id IS NOT NULL OR upstream_bill_id IS NOT NULL)
      );
      CREATE INDEX reconciliation_findings_state_idx ON reconciliation_findings (state, kind, last_seen_at DESC);
      CREATE INDEX reconciliation_findings_supplier_idx ON reconciliation_findings (supplier_id, state);
      CREATE INDEX reconciliation_findings_service_idx ON reconciliation_findings (service_id) WHERE service_id IS NOT NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS reconciliation_findings; DROP TABLE IF EXISTS reconciliation_runs;');
  },
};
