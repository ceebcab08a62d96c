import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { POWER_ACTION_NAMES, runPowerAction } from '../../../domain/services/console/power.js';
import { reinstallService } from '../../../domain/services/console/reinstall.js';
import { resetServicePassword } from '../../../domain/services/console/reset-password.js';
import { readServiceRuntime } from '../../../domain/services/console/runtime.js';
import { openVncConsole, VNC_TOKENS_PER_HOUR } from '../../../domain/services/console/vnc.js';
import { VNC_PUBLIC_TOKEN_TTL_SECONDS } from '../../../domain/services/console/vnc-tokens.js';
import { ok } from '../../envelope.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { idInput, idParam, jsonBody } from '../../schemas.js';

const tags = ['客户端：服务控制台'];
const CONSOLE_ERRORS = [
  ErrorCode.SERVICE_CONSOLE_READ_ONLY,
  ErrorCode.SERVICE_NOT_ACTIVE,
  ErrorCode.SERVICE_ACTION_UNSUPPORTED,
  ErrorCode.SUPPLIER_REFUSED,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
];
const CONSOLE_RULES = '需要上游绑定（否则控制台只读，40943）、服务运行中（40944）且服务具备对应能力（40947）；上游拒绝 40930，上游不可用 50300。每次操作写入服务记录。';

const hostPassword = z
  .string({ error: '请输入密码' })
  .min(8, { error: '密码需 8 到 32 位' })
  .max(32, { error: '密码需 8 到 32 位' })
  .regex(/^(?=.*[A-Za-z])(?=.*\d)\S+$/, { error: '密码需包含字母和数字，且不含空格' });

const power = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/power',
  tags,
  summary: '电源操作',
  description: `action：on 开机、off 关机、reboot 重启、hard_off 强制关机、hard_reboot 强制重启。${CONSOLE_RULES}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id'), ...jsonBody(z.object({ action: z.enum(POWER_ACTION_NAMES, { error: `action 只能是 ${POWER_ACTION_NAMES.join('、')}` }) })) },
  data: z.object({ service_id: z.number().int(), action: z.enum(POWER_ACTION_NAMES), done: z.boolean(), message: z.string() }),
  errors: CONSOLE_ERRORS,
});

const vnc = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/vnc',
  tags,
  summary: '获取 VNC 控制台令牌',
  description:
    `返回一次性公开控制台令牌与本平台控制台页面地址（console_url，带令牌）：令牌 256 位随机、只保存其哈希，绑定当前用户、该服务与请求方 IP，${VNC_PUBLIC_TOKEN_TTL_SECONDS} 秒内有效且只能兑换一次（GET /api/v2/client/vnc-tokens/{token}）。` +
    `从不返回 VNC 密码或上游控制台地址：VNC 认证由平台的中继完成。此时不请求上游，会话结束时写入服务记录。每个服务每小时最多 ${VNC_TOKENS_PER_HOUR} 个令牌（42900）。${CONSOLE_RULES}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id') },
  data: z.object({ service_id: z.number().int(), token: z.string(), console_url: z.string(), expires_in: z.number().int(), expires_at: z.string() }),
  errors: [ErrorCode.SERVICE_CONSOLE_READ_ONLY, ErrorCode.SERVICE_NOT_ACTIVE, ErrorCode.SERVICE_ACTION_UNSUPPORTED, ErrorCode.TOO_MANY_REQUESTS],
});

const reinstall = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/reinstall',
  tags,
  summary: '重装系统',
  description: `os_id 为该服务商品的操作系统选项的子选项编号（42200 否则）。password 可选（8 到 32 位，含字母和数字），不填则自动生成；新密码加密保存，可通过查看密码操作获取，从不在此返回。${CONSOLE_RULES}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: {
    params: idParam('id'),
    ...jsonBody(z.object({ os_id: idInput('请选择操作系统'), password: hostPassword.optional() })),
  },
  data: z.object({ service_id: z.number().int(), os_id: z.number().int(), os: z.string(), done: z.boolean(), password_generated: z.boolean() }),
  errors: CONSOLE_ERRORS,
});

const resetPassword = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/reset-password',
  tags,
  summary: '重置服务密码',
  description: `在上游重置主机密码（8 到 32 位，含字母和数字），成功后加密保存；从不回显。${CONSOLE_RULES}`,
  access: { surface: 'client', tokenScope: 'console' },
  request: { params: idParam('id'), ...jsonBody(z.object({ password: hostPassword })) },
  data: z.object({ service_id: z.number().int(), done: z.boolean() }),
  errors: CONSOLE_ERRORS,
});

const runtime = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/runtime',
  tags,
  summary: '实时状态（上游主机状态、电源、流量）',
  description: `实时读取上游，不写入服务记录。${CONSOLE_RULES}`,
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: z.object({
    service_id: z.number().int(),
    upstream_status: z.string(),
    power_status: z.string(),
    traffic: z.object({ limit_gb: z.number().int().nullable(), used_gb: z.string().nullable(), extra_gb: z.number().int() }),
  }),
  errors: CONSOLE_ERRORS,
});

export const clientServiceConsoleRoutes = createRouter()
  .openapi(power, async (c) => {
    const result = await runPowerAction(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, action: c.req.valid('json').action });
    return ok(c, result, result.message);
  })
  .openapi(vnc, async (c) => {
    const opened = await openVncConsole(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, ip: requestMeta(c).ip });
    return ok(c, opened, '控制台令牌已生成');
  })
  .openapi(reinstall, async (c) => {
    const body = c.req.valid('json');
    const result = await reinstallService(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, osId: body.os_id, password: body.password });
    return ok(c, result, '重装系统任务已提交');
  })
  .openapi(resetPassword, async (c) => {
    const result = await resetServicePassword(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, password: c.req.valid('json').password });
    return ok(c, result, '密码已重置');
  })
  .openapi(runtime, async (c) => {
    return ok(c, await readServiceRuntime(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id }));
  });
