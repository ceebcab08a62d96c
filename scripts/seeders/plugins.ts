import type { DomainDeps } from '../../domain/deps.js';
import { createPluginBinding } from '../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import type { PluginDomain } from '../../plugins/runtime/contract.js';
import { type RunningSandboxes, SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';

type BuiltIn = { domain: PluginDomain; slug: string; config: Record<string, unknown>; defaultBinding: boolean };

function builtInPlugins(s: RunningSandboxes, merchantPrivateKeyPem: string, captchaKey: string): BuiltIn[] {
  const c = SANDBOX_CREDENTIALS;
  return [
    {
      domain: 'payment',
      slug: 'qrpay',
      defaultBinding: true,
      config: {
        app_id: c.qrpayAppId,
        gateway_url: s.qrpay.url,
        merchant_private_key: merchantPrivateKeyPem,
        gateway_public_key: s.qrpay.gatewayPublicKeyPem,
      },
    },
    { domain: 'verification', slug: 'certify', defaultBinding: true, config: { app_id: c.certify.appId, app_secret: c.certify.appSecret, base_url: s.certify.baseUrl } },
    {
      domain: 'sms',
      slug: 'smsgate',
      defaultBinding: true,
      config: {
        access_key_id: c.sms.accessKeyId,
        access_key_secret: c.sms.accessKeySecret,
        base_url: s.sms.baseUrl,
        sign_name: c.sms.signName,
        templates: JSON.stringify({
          verify_code: 'SMS_VERIFY_CODE',
          renewal_reminder: 'SMS_RENEWAL',
          invoice_unpaid: 'SMS_INVOICE_UNPAID',
          service_overdue: 'SMS_SERVICE_OVERDUE',
          service_suspended: 'SMS_SERVICE_SUSPENDED',
          service_terminated: 'SMS_SERVICE_TERMINATED',
        }),
      },
    },
    {
      domain: 'mail',
      slug: 'smtp',
      defaultBinding: true,
      config: {
        accounts: JSON.stringify([
          { name: '沙箱邮件', host: s.mail.smtpHost, port: s.mail.smtpPort, secure: false, user: c.smtp.user, password: c.smtp.password, from: 'noreply@example.com' },
        ]),
        strategy: 'first_available',
      },
    },
    { domain: 'captcha', slug: 'image_captcha', defaultBinding: true, config: { signing_key: captchaKey } },
    {
      domain: 'upstream',
      slug: 'upstream_finance',
      defaultBinding: false,
      config: { base_url: s.upstream.baseUrl, account: c.upstream.username, api_key: c.upstream.apiKey },
    },
    { domain: 'addons', slug: 'daily_report', defaultBinding: false, config: { recipients: 'ops@example.com' } },
  ];
}

/**
 * Dev and demo: installs every built-in plugin, points it at its sandbox (addresses and the
 * gateway key change each start, so the configuration is refreshed every time), enables it
 * and binds it as the default of its domain. Idempotent.
 */
export async function configureBuiltInPlugins(
  deps: DomainDeps,
  sandboxes: RunningSandboxes,
  secrets: { merchantPrivateKeyPem: string; captchaSigningKey: string },
): Promise<string[]> {
  const configured: string[] = [];
  for (const p of builtInPlugins(sandboxes, secrets.merchantPrivateKeyPem, secrets.captchaSigningKey)) {
    const existing = await deps.db.models.Plugin.findOne({ where: { domain: p.domain, slug: p.slug } });
    const plugin = existing ?? (await installPlugin(deps, p.domain, p.slug));
    await updatePluginConfig(deps, plugin.id, p.config);
    if (plugin.status !== 'enabled') await enablePlugin(deps, plugin.id);
    if (p.defaultBinding) {
      const bound = await deps.db.models.PluginBinding.findOne({ where: { domain: p.domain, binding_type: 'default', scene: 'default' } });
      if (!bound) await createPluginBinding(deps, { plugin_id: plugin.id, binding_type: 'default', scene: 'default' });
    }
    configured.push(`${p.domain}/${p.slug}`);
  }
  return configured;
}
