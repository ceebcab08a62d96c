import { releaseDueCommissions } from '../../marketing/commissions.js';
import { applySpendLevels } from '../../marketing/member-levels.js';
import type { BuiltinTask } from '../types.js';

export const releaseCommissionsTask: BuiltinTask = {
  key: 'referral.release_commissions',
  title: '佣金解冻',
  description: '每小时把已过冻结期的待结算佣金（及其扣回）转为可提现；每条记录只转一次。',
  category: 'billing',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'automation',
  timeout: 300,
  lockTtlSeconds: 420,
  manualTriggerable: true,
  handler: (deps) => releaseDueCommissions(deps),
};

export const memberLevelsTask: BuiltinTask = {
  key: 'member_levels.apply_spend',
  title: '会员等级按消费升级',
  description: '每天按用户已支付（扣除退款）的消费总额，把未由管理员指定等级的用户设为其达到的最高会员等级；不再达到的撤销。只重算上次运行以来有支付或退款的用户；等级门槛变更后全量重算一次。',
  category: 'billing',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps) => applySpendLevels(deps),
};
