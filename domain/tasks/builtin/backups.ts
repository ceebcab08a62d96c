import type { BuiltinTask } from '../types.js';
import { checkWalArchive } from '../../backups/status.js';

export const walArchiveTask: BuiltinTask = {
  key: 'backups.check_wal_archive',
  title: '检查数据库 WAL 归档',
  description: '每次心跳读取数据库的 WAL 归档状态（pg_stat_archiver）：最近一次归档失败且之后没有成功时，发出一条管理员提醒（每个失败时刻一条）。备份年龄与最近一次成功归档也在仪表盘与指标中。',
  category: 'operations',
  triggers: [{ type: 'heartbeats', every: 1 }],
  queue: 'platform',
  timeout: 60,
  lockTtlSeconds: 840,
  manualTriggerable: true,
  handler: (deps) => checkWalArchive(deps),
};
