import { notFound } from '../../lib/errors.js';
import { pgSafe, pgSafeText } from '../../lib/pg-safe.js';
import { redactBounded } from '../../lib/redact.js';
import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { dayRangeConditions, pageParams } from './admin-audit.js';

/**
 * The system log (`system_logs`): what the platform itself did or met — process start-up,
 * migrations applied, schedules created, changed or removed, plugin lifecycle (install, enable,
 * disable, uninstall, configuration), configuration errors. A write never fails its caller.
 */
export const SYSTEM_LOG_CATEGORIES = ['startup', 'migration', 'schedule', 'plugin', 'config', 'audit'] as const;
export type SystemLogCategory = (typeof SYSTEM_LOG_CATEGORIES)[number];
export const SYSTEM_LOG_LEVELS = ['info', 'warn', 'error'] as const;
export type SystemLogLevel = (typeof SYSTEM_LOG_LEVELS)[number];

export type SystemLogEntry = {
  category: SystemLogCategory;
  event: string;
  message: string;
  level?: SystemLogLevel;
  detail?: unknown;
  process?: string;
};

/** Records one system event; a failure is logged and swallowed (the event itself already happened). */
export async function recordSystemLog(deps: Pick<DomainDeps, 'db' | 'logger'>, entry: SystemLogEntry): Promise<void> {
  try {
    await sqlRows(
      deps,
      `INSERT INTO system_logs (level, category, event, message, detail, process) VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        entry.level ?? 'info',
        entry.category,
        pgSafeText(entry.event).slice(0, 64),
        pgSafeText(entry.message).slice(0, 500),
        entry.detail === undefined ? null : JSON.stringify(pgSafe(redactBounded(entry.detail, 8192))),
        pgSafeText(entry.process ?? '').slice(0, 16),
      ],
    );
  } catch (err) {
    deps.logger.warn({ err, event: entry.event }, 'system log not written');
  }
}

/**
 * A configuration error at start-up, recorded when the database is reachable (`DATABASE_URL`
 * itself may be what is wrong): the message names variables, never their values.
 */
export async function recordConfigError(processName: string, err: Error, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const url = env.DATABASE_URL;
  if (!url) return;
  const { createDatabase } = await import('../../db/sequelize.js');
  let db: ReturnType<typeof createDatabase> | null = null;
  try {
    db = createDatabase({ url, poolMax: 1 });
    const silent = { warn: () => {} } as unknown as DomainDeps['logger'];
    await recordSystemLog({ db, logger: silent }, { category: 'config', level: 'error', event: 'config.invalid', message: err.message, process: processName });
  } catch {
    // Nowhere to record it: the process output has it.
  } finally {
    await db?.close().catch(() => {});
  }
}

export type SystemLogQuery = {
  page: number;
  page_size: number;
  category?: SystemLogCategory | undefined;
  level?: SystemLogLevel | undefined;
  event?: string | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
};

export type SystemLogRow = {
  id: number;
  level: SystemLogLevel;
  category: SystemLogCategory;
  event: string;
  message: string;
  detail: unknown;
  process: string;
  created_at: Date;
};

export async function listSystemLogs(deps: DomainDeps, query: SystemLogQuery): Promise<{ rows: SystemLogRow[]; total: number }> {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  for (const key of ['category', 'level', 'event'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${key} = ${param(query[key])}`);
  }
  conditions.push(...dayRangeConditions('created_at', query, param));
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const filters = [...values];
  const page = pageParams(query, param);
  const [rows, counted] = await Promise.all([
    sqlRows<SystemLogRow>(
      deps,
      `SELECT id::int AS id, level, category, event, message, NULL AS detail, process, created_at FROM system_logs ${where} ORDER BY id DESC ${page}`,
      values,
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM system_logs ${where}`, filters),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function getSystemLog(deps: DomainDeps, id: number): Promise<SystemLogRow> {
  const row = await sqlOne<SystemLogRow>(
    deps,
    `SELECT id::int AS id, level, category, event, message, detail, process, created_at FROM system_logs WHERE id = $1`,
    [id],
  );
  if (!row) throw notFound('系统日志不存在');
  return row;
}
