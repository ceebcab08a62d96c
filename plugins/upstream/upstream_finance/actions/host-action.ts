import type { FormInput } from '../client/form.js';
import { invalidInput, unexpectedResponse } from '../client/upstream-error.js';
import { asInt, asRecord, asString, type UnknownRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { optionalRecord, readText, requireOneOf, requirePositiveInt } from './payload.js';

export const HOST_ACTIONS = [
  'power_on',
  'power_off',
  'reboot',
  'hard_power_off',
  'hard_reboot',
  'status',
  'vnc',
  'reinstall',
  'reset_password',
  'rescue',
  'suspend',
  'unsuspend',
  'terminate',
] as const;
type HostAction = (typeof HOST_ACTIONS)[number];

/** Our action → the upstream `func` of `POST /provision/default`. */
const FUNCS: Record<HostAction, string> = {
  power_on: 'on',
  power_off: 'off',
  reboot: 'reboot',
  hard_power_off: 'hard_off',
  hard_reboot: 'hard_reboot',
  status: 'status',
  vnc: 'vnc',
  reinstall: 'reinstall',
  reset_password: 'crack_pass',
  rescue: 'rescue',
  suspend: 'suspend',
  unsuspend: 'unsuspend',
  terminate: 'terminate',
};

const MESSAGES: Record<HostAction, string> = {
  power_on: '已开机',
  power_off: '已关机',
  reboot: '已重启',
  hard_power_off: '已强制关机',
  hard_reboot: '已强制重启',
  status: '已获取电源状态',
  vnc: '已获取控制台地址',
  reinstall: '重装系统任务已提交',
  reset_password: '密码已重置',
  rescue: '已进入救援模式',
  suspend: '暂停请求已提交',
  unsuspend: '解除暂停请求已提交',
  terminate: '终止请求已提交',
};

const POWER_STATES = new Set(['on', 'off', 'rescue', 'suspended', 'paused']);
const PASSWORD = /^(?=.*[A-Za-z])(?=.*\d)\S{8,32}$/;

/** The extra form fields of an action, from `params` (checked here, before anything is sent). */
function actionFields(action: HostAction, params: UnknownRecord): FormInput {
  if (action === 'reinstall') {
    const osId = asInt(params['os_id']);
    if (osId === null || osId <= 0) throw invalidInput('参数错误：params.os_id 必须为正整数（操作系统子选项 ID）');
    const password = readText(params, 'password', { max: 32 });
    if (password !== '' && !PASSWORD.test(password)) throw invalidInput('参数错误：params.password 需 8 到 32 位且包含字母和数字');
    return password ? { os: osId, password } : { os: osId };
  }
  if (action === 'reset_password') {
    const password = readText(params, 'password', { required: true, max: 32 });
    if (!PASSWORD.test(password)) throw invalidInput('参数错误：params.password 需 8 到 32 位且包含字母和数字');
    return { password };
  }
  if (action === 'rescue') {
    const system = params['system'] === undefined ? 'linux' : requireOneOf(params, 'system', ['linux', 'windows'] as const);
    return { system: system === 'linux' ? 1 : 2 };
  }
  return {};
}

function consoleUrl(data: UnknownRecord): string {
  const url = asString(data['url']) ?? '';
  try {
    const protocol = new URL(url).protocol;
    if (protocol === 'http:' || protocol === 'https:') return url;
  } catch {
    // fall through
  }
  throw unexpectedResponse('上游控制台地址格式不正确');
}

/**
 * `POST /provision/default` (`id`, `func`). Passwords never come back: the VNC password and a
 * rescue system's temporary password are dropped here (the VNC URL carries its own token).
 */
export const runHostAction: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const action = requireOneOf(input.payload, 'action', HOST_ACTIONS);
  const fields = actionFields(action, optionalRecord(input.payload, 'params'));
  const envelope = await session.call({ method: 'POST', path: '/provision/default', form: { ...fields, id: hostId, func: FUNCS[action] } });
  const data = asRecord(envelope.data) ?? {};
  const status = (asString(data['status']) ?? '').toLowerCase();
  return {
    message: MESSAGES[action],
    data: {
      host_id: hostId,
      action,
      done: true,
      power_status: action === 'status' ? (POWER_STATES.has(status) ? status : 'unknown') : null,
      console_url: action === 'vnc' ? consoleUrl(data) : null,
    },
  };
};
