import { formString, type FormValue } from '../body.js';
import { generateHostPassword, isValidHostPassword } from '../cart-item.js';
import { findSandboxProduct } from '../catalogue-data.js';
import { issueConsoleTicket } from '../console/tickets.js';
import { CONSOLE_PATH } from '../console/upgrade.js';
import { productOsLabel } from '../host-factory.js';
import type { SandboxHost } from '../hosts-data.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';
import { bump, findHost, type SandboxState } from '../state.js';
import type { SandboxAnswer } from '../types.js';

type ActionInput = { host: SandboxHost; body: Record<string, FormValue>; origin: string; state: SandboxState };

const POWER_LABELS: Record<SandboxHost['power'], string> = { on: '运行中', off: '已关机', rescue: '救援模式' };

function done(msg: string, data: Record<string, unknown> = {}): SandboxAnswer {
  return { status: 200, msg, data };
}

function power(state: SandboxHost['power'], msg: string) {
  return ({ host }: ActionInput): SandboxAnswer => {
    host.power = state;
    return done(msg);
  };
}

/**
 * Service state changes (overdue suspension, unsuspension after renewal, termination). While
 * `deferStateActions` is armed they answer success and change nothing (an upstream that only queued them).
 */
function changeState(next: SandboxHost['status'], msg: string) {
  return ({ host, state }: ActionInput): SandboxAnswer => {
    if (state.deferredStateActions > 0) {
      state.deferredStateActions -= 1;
      return done(msg);
    }
    host.status = next;
    host.power = next === 'Active' ? 'on' : 'off';
    return done(msg);
  };
}

const FUNCTIONS: Record<string, (input: ActionInput) => SandboxAnswer> = {
  on: power('on', '开机成功'),
  off: power('off', '关机成功'),
  reboot: power('on', '重启成功'),
  hard_off: power('off', '强制关机成功'),
  hard_reboot: power('on', '强制重启成功'),
  status: ({ host }) => done(SANDBOX_MESSAGES.ok, { status: host.power, des: POWER_LABELS[host.power] }),
  vnc: ({ host, origin, state }) => {
    const ticket = issueConsoleTicket(state, host.id);
    return done('获取控制台成功', { url: `${origin}${CONSOLE_PATH}?host=${host.id}&token=${ticket.token}`, pass: ticket.password });
  },
  reinstall: ({ host, body }) => {
    const product = findSandboxProduct(host.productId);
    const os = product ? productOsLabel(product, formString(body, 'os') ?? '') : null;
    if (!os) return { status: 406, msg: SANDBOX_MESSAGES.osInvalid, data: {} };
    const password = formString(body, 'password') ?? '';
    if (password !== '' && !isValidHostPassword(password)) return { status: 406, msg: SANDBOX_MESSAGES.passwordInvalid, data: {} };
    host.os = os;
    host.username = os.startsWith('Windows') ? 'administrator' : 'root';
    host.port = os.startsWith('Windows') ? 3389 : 22;
    host.password = password || generateHostPassword();
    host.power = 'on';
    return done('重装任务已提交');
  },
  crack_pass: ({ host, body }) => {
    const password = formString(body, 'password') ?? '';
    if (!isValidHostPassword(password)) return { status: 406, msg: SANDBOX_MESSAGES.passwordInvalid, data: {} };
    host.password = password;
    return done('重置密码成功');
  },
  rescue: ({ host, body }) => {
    const system = formString(body, 'system') ?? '1';
    if (system !== '1' && system !== '2') return { status: 406, msg: SANDBOX_MESSAGES.badParam, data: {} };
    host.power = 'rescue';
    return done('已进入救援模式', { password: generateHostPassword() });
  },
  suspend: changeState('Suspended', '暂停成功'),
  unsuspend: changeState('Active', '解除暂停成功'),
  terminate: changeState('Terminated', '删除成功'),
};

/** The host statuses each function accepts; every other function needs an active host. */
const ALLOWED_STATUSES: Record<string, readonly SandboxHost['status'][]> = {
  suspend: ['Active'],
  unsuspend: ['Suspended'],
  terminate: ['Active', 'Suspended'],
};

/**
 * `POST /provision/default` (`id` = host id, `func`): power, status, VNC (the console websocket's
 * URL with a one-time ticket, plus the session's VNC password),
 * reinstall (`os` = OS sub-option id, optional `password`), password reset (`crack_pass` with
 * `password`), rescue (`system` 1 Linux, 2 Windows), and the state changes `suspend` (active
 * hosts), `unsuspend` (suspended hosts) and `terminate` (active or suspended hosts). The others
 * need an active host.
 */
export const hostActionRoute: SandboxRoute = {
  method: 'POST',
  path: '/provision/default',
  auth: 'required',
  handle({ state, account, body, origin }) {
    const host = findHost(account, formString(body, 'id'));
    if (!host) return { status: 406, msg: SANDBOX_MESSAGES.hostNotFound, data: {} };
    const func = formString(body, 'func') ?? '';
    const run = Object.hasOwn(FUNCTIONS, func) ? FUNCTIONS[func] : undefined;
    if (!run) return { status: 406, msg: SANDBOX_MESSAGES.funcUnsupported, data: {} };
    const allowed = ALLOWED_STATUSES[func] ?? ['Active'];
    if (!allowed.includes(host.status)) return { status: 400, msg: SANDBOX_MESSAGES.hostStateInvalid, data: {} };
    const answer = run({ host, body, origin, state });
    if (answer.status === 200) bump(state.ledger.hostActions, `${host.id}:${func}`);
    return answer;
  },
};
