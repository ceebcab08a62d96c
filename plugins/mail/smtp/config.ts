import { z } from 'zod';

export type MailAccount = { name: string; host: string; port: number; secure: boolean; user: string; password: string; from: string };
export type MailStrategy = 'first_available' | 'round_robin';
export type MailConfig = { accounts: MailAccount[]; strategy: MailStrategy; timeoutMs: number };

function jsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

const booleanLike = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'), z.literal(1).transform(() => true), z.literal(0).transform(() => false)]);

const accountSchema = z.object({
  name: z.string().trim().min(1).max(64),
  host: z.string().trim().min(1).max(255),
  port: z.coerce.number().int().min(1).max(65535),
  secure: booleanLike.default(false),
  user: z.string().max(255).default(''),
  password: z.string().max(1024).default(''),
  from: z.string().trim().min(3).max(320).includes('@'),
});

const schema = z.object({
  accounts: z.preprocess(jsonText, z.array(accountSchema).min(1).max(20)),
  strategy: z.enum(['first_available', 'round_robin']).default('first_available'),
  timeout_ms: z.coerce.number().int().min(1000).max(60_000).default(10_000),
});

export const CONFIG_INVALID_MESSAGE = '邮件插件配置不正确，请检查发信账户列表（名称、服务器、端口、发件人）';

/** The decrypted config (`accounts` as an array or JSON text, passwords included), or null. */
export function parseConfig(config: Record<string, unknown>): MailConfig | null {
  const input = { ...config, strategy: config.strategy ?? undefined, timeout_ms: config.timeout_ms === '' || config.timeout_ms === null ? undefined : config.timeout_ms };
  const parsed = schema.safeParse(input);
  if (!parsed.success) return null;
  return { accounts: parsed.data.accounts, strategy: parsed.data.strategy, timeoutMs: parsed.data.timeout_ms };
}
