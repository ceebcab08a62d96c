import { type FieldErrors, validationError } from '../../lib/errors.js';
import {
  CONFIG_OPTION_FIELDS,
  type ConfigOptionField,
  type ConfigOptionItem,
  type ConfigSubOption,
  isQuantityOptionType,
} from '../../lib/catalogue-contract.js';
import { checkPricingMap } from './pricing-map.js';

export { CONFIG_OPTION_FIELDS, type ConfigOptionField, type ConfigOptionItem, type ConfigSubOption, isQuantityOptionType };

export const CONFIG_OPTION_FIELD_LABELS: Record<ConfigOptionField, string> = {
  cpu: 'CPU',
  memory: '内存',
  area: '地域',
  os: '操作系统',
  system_disk_size: '系统盘',
  bw: '带宽',
  ip_num: 'IP 数量',
};

export const MAX_SUB_OPTIONS = 200;
const MAX_QUANTITY = 100_000;

/** Quantity kinds take a number; the others select one sub-option by id. */

export function isConfigOptionField(value: unknown): value is ConfigOptionField {
  return typeof value === 'string' && (CONFIG_OPTION_FIELDS as readonly string[]).includes(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readBooleanLike(value: unknown): boolean | null {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return null;
}

function readCount(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_QUANTITY ? n : null;
}

function readText(value: unknown, max: number): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text.length <= max ? text : null;
}

const OS_VERSION = /^[^^]+\^[^^]*$/;

type Add = (path: string, message: string) => void;

function checkSub(raw: unknown, path: string, item: { field: ConfigOptionField; quantity: boolean }, add: Add, errors: FieldErrors): ConfigSubOption | null {
  if (!isPlainObject(raw)) {
    add(path, '子选项必须是对象');
    return null;
  }
  const id = raw.id === undefined || raw.id === null ? 0 : typeof raw.id === 'number' && Number.isInteger(raw.id) && raw.id > 0 ? raw.id : -1;
  if (id < 0) add(`${path}.id`, '子选项编号必须是正整数');
  const value = readText(raw.value ?? raw.label, 128);
  if (!value) add(`${path}.value`, '子选项的值不能为空，最多 128 个字符');
  const label = readText(raw.label ?? raw.value, 128);
  if (label === null) add(`${path}.label`, '子选项名称最多 128 个字符');
  const sub: ConfigSubOption = { id: Math.max(id, 0), value: value ?? '', label: label || value || '', pricing: {} };
  if (raw.pricing !== undefined) sub.pricing = checkPricingMap(raw.pricing, `${path}.pricing`, errors);
  if (item.field === 'os') {
    const version = typeof raw.version === 'string' ? raw.version.trim() : '';
    if (!OS_VERSION.test(version)) add(`${path}.version`, '操作系统版本必须是 <系列>^<版本> 的格式，例如 CentOS^7.9');
    else sub.version = version;
  } else if (raw.version !== undefined) {
    add(`${path}.version`, '只有操作系统选项可以填写 version');
  }
  if (item.quantity) {
    for (const key of ['qty_minimum', 'qty_maximum'] as const) {
      if (raw[key] === undefined) continue;
      const n = readCount(raw[key]);
      if (n === null) add(`${path}.${key}`, '数量必须是不小于 0 的整数');
      else sub[key] = n;
    }
    if (sub.qty_minimum !== undefined && sub.qty_maximum !== undefined && sub.qty_minimum > sub.qty_maximum) {
      add(`${path}.qty_maximum`, '数量上限不能小于下限');
    }
  }
  return sub;
}

function checkItem(raw: unknown, path: string, add: Add, errors: FieldErrors): ConfigOptionItem | null {
  if (!isPlainObject(raw)) {
    add(path, '配置项必须是对象');
    return null;
  }
  if (!isConfigOptionField(raw.field)) {
    add(`${path}.field`, `配置项字段只能是：${CONFIG_OPTION_FIELDS.join('、')}`);
    return null;
  }
  const field = raw.field;
  const name = readText(raw.name, 64);
  if (!name) add(`${path}.name`, '配置项名称不能为空，最多 64 个字符');
  const optionType = raw.option_type;
  if (typeof optionType !== 'number' || !Number.isInteger(optionType) || optionType < 1 || optionType > 19) {
    add(`${path}.option_type`, '配置项类型必须是 1 到 19 的整数');
    return null;
  }
  const quantity = isQuantityOptionType(optionType);
  const hidden = readBooleanLike(raw.hidden);
  if (hidden === null) add(`${path}.hidden`, 'hidden 只能是布尔值或 0/1');
  const qtyMinimum = raw.qty_minimum === undefined ? 0 : readCount(raw.qty_minimum);
  const qtyMaximum = raw.qty_maximum === undefined ? 0 : readCount(raw.qty_maximum);
  if (qtyMinimum === null) add(`${path}.qty_minimum`, '数量下限必须是不小于 0 的整数');
  if (qtyMaximum === null) add(`${path}.qty_maximum`, '数量上限必须是不小于 0 的整数');
  if (quantity && qtyMinimum !== null && qtyMaximum !== null && (qtyMaximum < 1 || qtyMaximum < qtyMinimum)) {
    add(`${path}.qty_maximum`, '数量型配置项的上限必须不小于 1 且不小于下限');
  }
  const parameter = raw.parameter === undefined || raw.parameter === null ? '' : readText(raw.parameter, 64);
  if (parameter === null) add(`${path}.parameter`, 'parameter 必须是文本，最多 64 个字符');
  const unit = raw.unit === undefined || raw.unit === null ? '' : readText(raw.unit, 16);
  if (unit === null) add(`${path}.unit`, '单位必须是文本，最多 16 个字符');

  const subs: ConfigSubOption[] = [];
  if (!Array.isArray(raw.sub ?? [])) add(`${path}.sub`, '子选项必须是数组');
  else {
    const list = (raw.sub ?? []) as unknown[];
    if (list.length > MAX_SUB_OPTIONS) add(`${path}.sub`, `子选项最多 ${MAX_SUB_OPTIONS} 个`);
    if (!quantity && list.length === 0) add(`${path}.sub`, '选择型配置项至少需要一个子选项');
    list.forEach((s, i) => {
      const sub = checkSub(s, `${path}.sub.${i}`, { field, quantity }, add, errors);
      if (sub) subs.push(sub);
    });
  }
  // Sub-options without an id get the next free one, so a selection can always name them.
  const ids = new Set<number>();
  for (const [i, sub] of subs.entries()) {
    if (sub.id === 0) continue;
    if (ids.has(sub.id)) add(`${path}.sub.${i}.id`, `子选项编号 ${sub.id} 重复`);
    ids.add(sub.id);
  }
  let next = Math.max(0, ...ids) + 1;
  for (const sub of subs) if (sub.id === 0) sub.id = next++;

  return {
    field,
    name: name ?? '',
    option_type: optionType,
    hidden: hidden ?? false,
    sub: subs,
    qty_minimum: quantity ? (qtyMinimum ?? 0) : 0,
    qty_maximum: quantity ? (qtyMaximum ?? 0) : 0,
    parameter: parameter ?? '',
    unit: unit ?? '',
  };
}

/**
 * Checks `config_options`: an array of config option items (an object, such as upstream binding
 * data, is refused), each field at most once, `os` versions as `<family>^<version>`, sub-option
 * pricing as flat maps. Every problem is reported under its path; nothing is half-accepted.
 */
export function parseConfigOptions(value: unknown, path = 'config_options'): ConfigOptionItem[] {
  const errors: FieldErrors = {};
  const add: Add = (key, message) => (errors[key] ??= []).push(message);
  if (!Array.isArray(value)) {
    throw validationError({ [path]: ['配置项必须是配置项对象组成的数组，不能是对象'] });
  }
  const items: ConfigOptionItem[] = [];
  const seen = new Set<ConfigOptionField>();
  value.forEach((raw, i) => {
    const item = checkItem(raw, `${path}.${i}`, add, errors);
    if (!item) return;
    if (seen.has(item.field)) add(`${path}.${i}.field`, `配置项 ${item.field} 重复`);
    seen.add(item.field);
    items.push(item);
  });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return items;
}

/** Operating systems grouped by family (the part of `version` before `^`), for the storefront. */
export function groupSystemsByFamily(option: ConfigOptionItem): Array<{ family: string; systems: Array<{ id: number; label: string; version: string }> }> {
  const families = new Map<string, Array<{ id: number; label: string; version: string }>>();
  for (const sub of option.sub) {
    const [family = '其他', version = ''] = (sub.version ?? '').split('^');
    const list = families.get(family) ?? [];
    list.push({ id: sub.id, label: sub.label, version });
    families.set(family, list);
  }
  return [...families].map(([family, systems]) => ({ family, systems }));
}
