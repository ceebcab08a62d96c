import { z } from 'zod';

export type CaptchaConfig = { signingKey: string; length: number; noise: number; ttlSeconds: number };

const optionalNumber = (min: number, max: number, fallback: number) =>
  z.preprocess((v) => (v === '' || v === null || v === undefined ? fallback : v), z.coerce.number().int().min(min).max(max));

const schema = z.object({
  signing_key: z.string().min(16),
  length: optionalNumber(4, 8, 4),
  noise: optionalNumber(0, 8, 2),
  ttl_seconds: optionalNumber(30, 1800, 300),
});

export const CONFIG_INVALID_MESSAGE = '图形验证码插件配置不正确，请检查签名密钥（至少 16 个字符）、字符个数和有效期';

export function parseConfig(config: Record<string, unknown>): CaptchaConfig | null {
  const parsed = schema.safeParse(config);
  if (!parsed.success) return null;
  const d = parsed.data;
  return { signingKey: d.signing_key, length: d.length, noise: d.noise, ttlSeconds: d.ttl_seconds };
}
