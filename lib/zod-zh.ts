import { z } from 'zod';

type Issue = Parameters<NonNullable<z.core.$ZodConfig['localeError']>>[0];

const typeNames: Record<string, string> = {
  string: '字符串',
  number: '数字',
  int: '整数',
  boolean: '布尔值',
  array: '数组',
  object: '对象',
  bigint: '整数',
  date: '日期',
  null: '空值',
  undefined: '空值',
};

const formatNames: Record<string, string> = {
  email: '邮箱',
  url: '网址',
  uuid: 'UUID',
  datetime: '日期时间',
  date: '日期',
  ipv4: 'IPv4 地址',
  ipv6: 'IPv6 地址',
  regex: '',
};

function describeValues(values: readonly unknown[]): string {
  return values.map((v) => String(v)).join('、');
}

/** Fully Simplified Chinese validation messages: no English type names reach a client. */
export function chineseValidationMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return '此字段为必填项';
      return `类型不正确，应为${typeNames[issue.expected] ?? '有效值'}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `取值无效，应为 ${String(issue.values[0])}`
        : `取值无效，可选值：${describeValues(issue.values)}`;
    case 'too_small': {
      const min = issue.minimum.toString();
      if (issue.origin === 'string') return `长度不能少于 ${min} 个字符`;
      if (issue.origin === 'array' || issue.origin === 'set') return `至少需要 ${min} 项`;
      return issue.inclusive ? `不能小于 ${min}` : `必须大于 ${min}`;
    }
    case 'too_big': {
      const max = issue.maximum.toString();
      if (issue.origin === 'string') return `长度不能超过 ${max} 个字符`;
      if (issue.origin === 'array' || issue.origin === 'set') return `最多 ${max} 项`;
      return issue.inclusive ? `不能大于 ${max}` : `必须小于 ${max}`;
    }
    case 'invalid_format':
      return `${formatNames[issue.format] ?? ''}格式不正确`;
    case 'not_multiple_of':
      return `必须是 ${String(issue.divisor)} 的倍数`;
    case 'unrecognized_keys':
      return `不支持的字段：${issue.keys.join('、')}`;
    case 'invalid_union':
      return '取值无效';
    default:
      return '取值无效';
  }
}

let installed = false;

export function installChineseValidationMessages(): void {
  if (installed) return;
  z.config({ localeError: chineseValidationMessage });
  installed = true;
}
