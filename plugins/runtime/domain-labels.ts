import type { PluginDomain } from './contract.js';

export const PLUGIN_DOMAIN_LABELS: Record<PluginDomain, string> = {
  payment: '支付',
  verification: '实名认证',
  captcha: '验证码',
  mail: '邮件',
  sms: '短信',
  upstream: '上游供应商',
  addons: '扩展',
};

/** Demo plugins (`demo_` prefix) are neither listed nor installable through admin. */
export function isDemoSlug(slug: string): boolean {
  return slug.startsWith('demo_');
}
