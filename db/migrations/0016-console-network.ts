import type { Migration } from './types.js';

/**
 * Security groups of the service console, and the per-user action counters of the console's
 * network, security and monitoring routes.
 *
 * Groups and their rules live here, owned by one user; linking a group to a service pushes
 * each of its rules to the service's upstream host (custom module `addSecurityRule`), and
 * `service_security_rule_pushes` remembers the upstream rule id of every rule pushed to every
 * service, so an unlink, a rule removal or a group deletion removes exactly what was pushed.
 * A linked group cannot be deleted (no cascade from the link), a rule's pushes go with it.
 *
 * `client_action_hits` counts a user's console calls per scope and minute (one
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING hits`, so concurrent calls count exactly).
 */
export const migration0016ConsoleNetwork: Migration = {
  name: '0016-console-network',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE security_groups (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name VARCHAR(64) NOT NULL CHECK (length(btrim(name)) > 0),
        description VARCHAR(255) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (user_id, name)
      );
      CREATE TABLE security_group_rules (
        id SERIAL PRIMARY KEY,
        group_id INTEGER NOT NULL REFERENCES security_groups(id) ON DELETE CASCADE,
        direction VARCHAR(8) NOT NULL CHECK (direction IN ('in', 'out')),
        protocol VARCHAR(8) NOT NULL CHECK (protocol IN ('tcp', 'udp', 'icmp', 'all')),
        port_from INTEGER NOT NULL CHECK (port_from BETWEEN 1 AND 65535),
        port_to INTEGER NOT NULL CHECK (port_to BETWEEN 1 AND 65535),
        cidr VARCHAR(49) NOT NULL,
        action VARCHAR(8) NOT NULL CHECK (action IN ('allow', 'deny')),
        description VARCHAR(255) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (port_from <= port_to)
      );
      CREATE INDEX security_group_rules_group_idx ON security_group_rules (group_id, id);
      CREATE TABLE service_security_groups (
        service_id INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        group_id INTEGER NOT NULL REFERENCES security_groups(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (service_id, group_id)
      );
      CREATE INDEX service_security_groups_group_idx ON service_security_groups (group_id);
      CREATE TABLE service_security_rule_pushes (
        service_id INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        rule_id INTEGER NOT NULL REFERENCES security_group_rules(id) ON DELETE CASCADE,
        group_id INTEGER NOT NULL REFERENCES security_groups(id) ON DELETE CASCADE,
        upstream_rule_id VARCHAR(64) NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (service_id, rule_id)
      );
      CREATE INDEX service_security_rule_pushes_rule_idx ON service_security_rule_pushes (rule_id);
      CREATE TABLE client_action_hits (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        scope VARCHAR(32) NOT NULL,
        window_start TIMESTAMPTZ NOT NULL,
        hits INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, scope, window_start)
      );
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS client_action_hits, service_security_rule_pushes, service_security_groups, security_group_rules, security_groups');
  },
};
