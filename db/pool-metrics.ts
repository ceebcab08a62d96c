import { watchPool } from '../lib/metrics.js';
import type { Database } from './sequelize.js';

type SequelizePool = { size: number; available: number; using: number; waiting: number; maxSize: number };

/** Reports the database pool in `db_pool_connections` at each scrape; returns the way to stop. */
export function watchDatabasePool(name: string, db: Database): () => void {
  return watchPool(name, () => {
    const pool = (db.sequelize.connectionManager as unknown as { pool?: SequelizePool }).pool;
    if (!pool) return { size: 0, available: 0, using: 0, waiting: 0, max: 0 };
    return { size: pool.size, available: pool.available, using: pool.using, waiting: pool.waiting, max: pool.maxSize };
  });
}
