import type { PluginExecuteResult } from './contract.js';

const HAN = /\p{Script=Han}/u;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type Normalised = {
  result: Omit<PluginExecuteResult, 'diagnostics'>;
  diagnostics: Record<string, unknown> | null;
  /** Why the raw result was not trusted as is; goes to the runtime log only. */
  problem: string | null;
};

/**
 * A plugin's answer made safe: `success` must be boolean, `message` Chinese (otherwise a
 * generic Chinese message replaces it and the original goes to the log), `data` an object.
 */
export function normaliseResult(action: string, raw: unknown): Normalised {
  if (!isRecord(raw) || typeof raw.success !== 'boolean') {
    return {
      result: { success: false, action, message: '插件返回结果无效', data: {} },
      diagnostics: null,
      problem: 'result is not {success: boolean, ...}',
    };
  }
  const success = raw.success;
  const fallback = success ? '操作成功' : '插件执行失败，请稍后重试';
  const chinese = typeof raw.message === 'string' && HAN.test(raw.message);
  return {
    result: {
      success,
      action: typeof raw.action === 'string' && raw.action !== '' ? raw.action : action,
      message: chinese ? (raw.message as string).slice(0, 255) : fallback,
      data: isRecord(raw.data) ? raw.data : {},
    },
    diagnostics: isRecord(raw.diagnostics) ? raw.diagnostics : null,
    problem: chinese ? null : `non-Chinese message: ${String(raw.message)}`,
  };
}
