import { sqlOne, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';

/**
 * The log tables partitioned by month (migration 0034; docs/operations.md "Log tables at
 * volume"): one partition per calendar month in UTC, `<table>_pYYYYMM`, made by the database
 * function `log_partition_create` (a table of its own attached with ATTACH PARTITION: SHARE
 * UPDATE EXCLUSIVE on the parent, so inserts go on while it runs). A row whose month has no
 * partition is refused, so the months ahead are made in advance: PARTITION_MONTHS_AHEAD by the
 * migration and by the daily task `logs.partition_maintenance`.
 */
export const PARTITIONED_LOG_TABLES = ['api_request_logs', 'plugin_runtime_logs'] as const;
export type PartitionedLogTable = (typeof PARTITIONED_LOG_TABLES)[number];

export const PARTITION_MONTHS_AHEAD = 3;

export type LogPartition = { name: string; lower_bound: Date; upper_bound: Date; detach_pending: boolean };

export function isPartitionedLogTable(table: string): table is PartitionedLogTable {
  return (PARTITIONED_LOG_TABLES as readonly string[]).includes(table);
}

export async function logPartitions(deps: Pick<DomainDeps, 'db'>, table: PartitionedLogTable): Promise<LogPartition[]> {
  return sqlRows<LogPartition>(deps, `SELECT name, lower_bound, upper_bound, detach_pending FROM log_partitions($1)`, [table]);
}

/** Makes the partitions of this month and the PARTITION_MONTHS_AHEAD after it that are missing; answers how many it made per table. */
export async function ensureLogPartitions(deps: Pick<DomainDeps, 'db'>, now = new Date()): Promise<Record<string, number>> {
  const summary: Record<string, number> = {};
  for (const table of PARTITIONED_LOG_TABLES) {
    const made = await sqlOne<{ made: number }>(
      deps,
      `SELECT count(*) FILTER (WHERE made)::int AS made FROM (
         SELECT log_partition_create($1, (date_trunc('month', $2::timestamptz AT TIME ZONE 'UTC') + n * interval '1 month')::date) AS made
           FROM generate_series(0, $3::int) AS n) AS months`,
      [table, now, PARTITION_MONTHS_AHEAD],
    );
    summary[`${table}_partitions_created`] = made?.made ?? 0;
  }
  return summary;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Removes the partitions of `table` whose every row is older than `cutoff`: DETACH PARTITION
 * CONCURRENTLY (readers and writers of the other months never wait; a detach interrupted half
 * way is finished with FINALIZE by the next call), then DROP TABLE. No DELETE, no vacuum debt.
 * Answers the partitions and the rows they held. Statements of their own, never in a
 * transaction (DETACH … CONCURRENTLY refuses one).
 */
export async function dropLogPartitionsBefore(deps: Pick<DomainDeps, 'db'>, table: PartitionedLogTable, cutoff: Date): Promise<{ partitions: number; rows: number }> {
  const doomed = (await logPartitions(deps, table)).filter((p) => p.upper_bound.getTime() <= cutoff.getTime());
  let rows = 0;
  for (const partition of doomed) {
    const name = quoted(partition.name);
    const counted = await sqlOne<{ n: number }>(deps, `SELECT count(*)::int AS n FROM ${name}`, []);
    rows += counted?.n ?? 0;
    await sqlRows(deps, `ALTER TABLE ${table} DETACH PARTITION ${name} ${partition.detach_pending ? 'FINALIZE' : 'CONCURRENTLY'}`, []);
    await sqlRows(deps, `DROP TABLE ${name}`, []);
  }
  return { partitions: doomed.length, rows };
}
