import { z } from 'zod';

export type SmsConfig = { accessKeyId: string; accessKeySecret: string; baseUrl: string; signName: string; templates: Record<string, string> };

const templatesSchema = z.record(z.string().regex(/^[a-z][a-z0-9_.]{0,63}$/), z.string().trim().min(1).max(64));

const schema = z.object({
  access_key_id: z.string().trim().min(1),
  access_key_secret: z.string().min(1),
  base_url: z.url({ protocol: /^https?$/ }),
  sign_name: z.string().trim().min(1).max(32),
  templates: z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }, templatesSchema),
});

export const CONFIG_INVALID_MESSAGE = '短信插件配置不完整，请检查 AccessKey、接口地址、短信签名和场景模板';

/** The decrypted configuration (`templates` as an object or JSON text), or null when invalid. */
export function parseConfig(config: Record<string, unknown>): SmsConfig | null {
  const parsed = schema.safeParse(config);
  if (!parsed.success) return null;
  const d = parsed.data;
  return { accessKeyId: d.access_key_id, accessKeySecret: d.access_key_secret, baseUrl: d.base_url.replace(/\/+$/, ''), signName: d.sign_name, templates: d.templates };
}
