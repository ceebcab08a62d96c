import { z } from 'zod';

export type CertifyConfig = { appId: string; appSecret: string; baseUrl: string; callbackUrl: string | null };

const schema = z.object({
  app_id: z.string().trim().min(1),
  app_secret: z.string().min(1),
  base_url: z.url({ protocol: /^https?$/ }),
  callback_url: z.union([z.url({ protocol: /^https?$/ }), z.literal(''), z.null()]).optional(),
});

/** The decrypted configuration, or null when required fields are missing or malformed. */
export function parseConfig(config: Record<string, unknown>): CertifyConfig | null {
  const parsed = schema.safeParse(config);
  if (!parsed.success) return null;
  const { app_id, app_secret, base_url, callback_url } = parsed.data;
  return { appId: app_id, appSecret: app_secret, baseUrl: base_url.replace(/\/+$/, ''), callbackUrl: callback_url ? callback_url : null };
}

export const CONFIG_INVALID_MESSAGE = '实名认证插件配置不完整，请检查应用 ID、应用密钥和接口地址';

export const DEFAULT_CALLBACK_PATH = '/api/v2/client/verification/callback';

export function callbackUrl(config: CertifyConfig, publicBaseUrl: string): string {
  return config.callbackUrl ?? `${publicBaseUrl.replace(/\/+$/, '')}${DEFAULT_CALLBACK_PATH}`;
}
