import { QueryTypes } from 'sequelize';
import type { TestPlatform } from './platform.js';

/** Rows of a SELECT (or of a statement with RETURNING) on the platform's database. */
export async function selectRows<T extends object>(platform: TestPlatform, text: string, bind: unknown[] = []): Promise<T[]> {
  return platform.deps.db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });
}

/** Every column of every row of a table as one string, to look for what must never be there. */
export async function tableText(platform: TestPlatform, table: string): Promise<string> {
  const rows = await selectRows<{ t: string }>(platform, `SELECT coalesce(string_agg(to_jsonb(x)::text, '\n'), '') AS t FROM ${table} x`);
  return rows[0]?.t ?? '';
}

/** Writes the buffered admin audit and request log rows now. */
export async function flushLogs(platform: TestPlatform): Promise<void> {
  await platform.deps.operations?.audit.flush();
  await platform.deps.operations?.requestLog.flush();
}
