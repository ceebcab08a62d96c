import type { FormField, FormInput } from '../client/form.js';
import { invalidInput } from '../client/upstream-error.js';
import { flattenModuleRecord } from '../normalise/module-record.js';
import type { FinanceAction } from './action-types.js';
import { optionalRecord, readText, requirePositiveInt } from './payload.js';

const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const FIELDS_MAX = 30;

function readFields(payload: Record<string, unknown>): FormInput {
  const fields = optionalRecord(payload, 'fields');
  const entries = Object.entries(fields);
  if (entries.length > FIELDS_MAX) throw invalidInput(`参数错误：fields 最多 ${FIELDS_MAX} 项`);
  const form: FormInput = {};
  for (const [name, value] of entries) {
    const scalar = typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!FIELD_NAME.test(name) || name === 'func' || !scalar) throw invalidInput(`参数错误：fields.${name} 必须为字符串、数字或布尔值`);
    form[name] = value as FormField;
  }
  return form;
}

/**
 * A custom module action: `POST /provision/custom/<host id>` with `Authorization: JWT <jwt>`,
 * `func` and its fields (NAT rules, security groups, snapshots). `result` holds the scalar
 * fields of the answer (no secrets).
 */
export const runModuleAction: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const name = readText(input.payload, 'function', { required: true, max: 64, pattern: FUNCTION_NAME });
  const fields = readFields(input.payload);
  const envelope = await session.call({ method: 'POST', path: `/provision/custom/${hostId}`, form: { ...fields, func: name }, auth: 'module' });
  return { message: '上游模块操作已完成', data: { host_id: hostId, function: name, done: true, result: flattenModuleRecord(envelope.data) } };
};
