import { z } from 'zod';
import { settingGroup } from '../define.js';

const perMinute = (label: string) => z.number().int(`${label}必须是整数`).min(1, `${label}至少为 1`).max(1000, `${label}最多为 1000`);

/** The service console's per-user limits (NAT, security groups, monitoring). */
export const consoleSettings = settingGroup('console', '服务控制台', {
  network_per_minute: {
    label: 'NAT 操作频率上限（次/分钟）',
    description: '每个用户每分钟最多的 NAT 端口转发查询与变更次数，超出返回 42900。',
    schema: perMinute('NAT 操作频率上限'),
    default: 30,
  },
  security_per_minute: {
    label: '安全组操作频率上限（次/分钟）',
    description: '每个用户每分钟最多的安全组创建、删除、规则变更与关联次数，超出返回 42900。',
    schema: perMinute('安全组操作频率上限'),
    default: 30,
  },
  monitoring_per_minute: {
    label: '监控查询频率上限（次/分钟）',
    description: '每个用户每分钟最多的监控数据查询次数，超出返回 42900。',
    schema: perMinute('监控查询频率上限'),
    default: 60,
  },
});
