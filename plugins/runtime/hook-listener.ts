import type { ScheduleHookListener } from './contract.js';

export type HookListenerFn = (hook: string, context: Record<string, unknown>) => Promise<unknown>;

type Resolved = { ok: true; call: HookListenerFn } | { ok: false; reason: string };

function describe(listener: unknown): string {
  return typeof listener === 'string' ? listener : JSON.stringify(listener);
}

function classMethod(mod: Record<string, unknown>, className: string, method: string): Resolved {
  const exported = mod[className];
  if (typeof exported !== 'function') return { ok: false, reason: `入口模块没有导出类 ${className}` };
  const proto = (exported as { prototype?: Record<string, unknown> }).prototype;
  const fn = proto?.[method];
  if (typeof fn !== 'function') return { ok: false, reason: `类 ${className} 没有方法 ${method}` };
  const Ctor = exported as new () => Record<string, (hook: string, context: Record<string, unknown>) => unknown>;
  return {
    ok: true,
    call: async (hook, context) => {
      const instance = new Ctor();
      return instance[method]?.(hook, context);
    },
  };
}

/**
 * Resolves one schedule-hook listener against the exports of the entry module, in the four
 * forms of the contract: `"Class"` (method `handle`), `"Class@method"`, `["Class", "method"]`
 * and `{ "callable": "fn" }`.
 */
export function resolveHookListener(mod: Record<string, unknown>, listener: ScheduleHookListener | unknown): Resolved {
  if (typeof listener === 'string' && listener.trim() !== '') {
    const [className, method, extra] = listener.split('@');
    if (extra !== undefined || !className || method === '') return { ok: false, reason: `监听器 ${listener} 格式不正确` };
    return classMethod(mod, className, method ?? 'handle');
  }
  if (Array.isArray(listener)) {
    const [className, method] = listener as unknown[];
    if (listener.length !== 2 || typeof className !== 'string' || typeof method !== 'string' || !className || !method) {
      return { ok: false, reason: `监听器 ${describe(listener)} 必须是 [类名, 方法名]` };
    }
    return classMethod(mod, className, method);
  }
  if (typeof listener === 'object' && listener !== null && 'callable' in listener) {
    const name = (listener as { callable: unknown }).callable;
    if (typeof name !== 'string' || !name) return { ok: false, reason: '监听器的 callable 必须是函数名' };
    const fn = mod[name];
    if (typeof fn !== 'function') return { ok: false, reason: `入口模块没有导出函数 ${name}` };
    return { ok: true, call: async (hook, context) => (fn as HookListenerFn)(hook, context) };
  }
  return { ok: false, reason: `监听器 ${describe(listener)} 格式不正确` };
}
