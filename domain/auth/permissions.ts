/**
 * Every admin permission code with its Chinese label. The spec names `user.recharge`,
 * `invoice.manage` and the `coupon.*` family; the rest are one code per admin capability.
 * A super role holds all of them implicitly.
 */
export const PERMISSIONS = {
  'admin.manage': '管理员与角色管理',
  'admin.reset_2fa': '重置其他管理员的两步验证',
  'user.view': '查看用户',
  'user.manage': '管理用户（创建、编辑资料、重置密码、备注、禁用、启用）',
  'user.recharge': '用户余额调整',
  'invoice.view': '查看账单',
  'invoice.manage': '账单管理与退款',
  'coupon.view': '查看优惠券',
  'coupon.manage': '管理优惠券',
  'coupon.campaign': '管理优惠券活动',
  'referral.view': '查看推广返佣与提现',
  'referral.manage': '管理返佣比例',
  'referral.withdrawal': '审核与打款佣金提现',
  'member_level.view': '查看会员等级',
  'member_level.manage': '管理会员等级与用户等级',
  'log.view': '查看日志',
  'log.manage': '按类型与时间清理日志',
  'audit.view': '查看管理员操作审计',
  'dashboard.view': '查看仪表盘（营收、用户、服务与任务概况）',
  'schedule.view': '查看计划任务',
  'schedule.manage': '管理与手动触发计划任务',
  'plugin.view': '查看集成插件与运行日志',
  'service.view': '查看服务与开通进度',
  'service.manage': '管理服务（开通重试与取消、续费处理）',
  'supplier.view': '查看供应商与上游余额',
  'supplier.manage': '管理供应商（创建、修改、导入与绑定商品）',
  'economics.view': '查看经营数据（成本、上游余额与预测）',
  'economics.manage': '管理经营设置与处理',
  'plugin.manage': '管理集成插件（扫描、安装、配置、启用、停用、卸载、绑定）',
  'product.view': '查看商品目录（菜单、分组、分类、商品与变更记录）',
  'setting.view': '查看系统设置（敏感项只见掩码）',
  'setting.manage': '修改系统设置',
  'product.manage': '管理商品目录（菜单、分组、分类、商品的增删改与排序）',
  'ticket.view': '查看工单',
  'ticket.manage': '处理工单（回复、内部备注、分配、状态）与管理工单部门',
  'content.view': '查看公告、帮助文章与媒体文件',
  'content.manage': '管理公告、帮助文章、分类、媒体文件（上传、删除）与首页横幅',
  'verification.view': '查看实名认证记录',
  'verification.manage': '管理实名认证（解除绑定）',
} as const;

export type PermissionCode = keyof typeof PERMISSIONS;

export const PERMISSION_CODES = Object.keys(PERMISSIONS) as PermissionCode[];

export function isPermissionCode(value: string): value is PermissionCode {
  return Object.hasOwn(PERMISSIONS, value);
}
