import { CONFIG_OPTION_FIELDS, type ConfigOptionField, isQuantityOptionType } from '../../../../lib/catalogue-contract.js';

export { CONFIG_OPTION_FIELDS, type ConfigOptionField, isQuantityOptionType };

const FIELD_ALIASES: Record<string, ConfigOptionField> = {
  cpu: 'cpu',
  vcpu: 'cpu',
  core: 'cpu',
  cores: 'cpu',
  memory: 'memory',
  mem: 'memory',
  ram: 'memory',
  area: 'area',
  region: 'area',
  location: 'area',
  zone: 'area',
  node: 'area',
  os: 'os',
  system: 'os',
  image: 'os',
  system_disk_size: 'system_disk_size',
  system_disk: 'system_disk_size',
  sys_disk: 'system_disk_size',
  disk: 'system_disk_size',
  bw: 'bw',
  bandwidth: 'bw',
  ip_num: 'ip_num',
  ipnum: 'ip_num',
  ip: 'ip_num',
  ip_count: 'ip_num',
};

/** option_type → field for the typed option kinds (note: 5 OS, 6/7 CPU, 8/9 memory, …). */
const FIELD_BY_OPTION_TYPE: Record<number, ConfigOptionField> = {
  5: 'os',
  6: 'cpu',
  7: 'cpu',
  8: 'memory',
  9: 'memory',
  10: 'bw',
  11: 'bw',
  12: 'area',
  13: 'system_disk_size',
  14: 'system_disk_size',
};

/** Quantity kinds take a number when buying; the others take a sub-option id. */

/** Our field for an upstream option (`"<field>|<label>"` name, else its option_type); null if none fits. */
export function resolveOptionField(rawField: string | null, optionType: number): ConfigOptionField | null {
  if (rawField !== null) {
    const alias = FIELD_ALIASES[rawField.trim().toLowerCase()];
    if (alias) return alias;
  }
  return FIELD_BY_OPTION_TYPE[optionType] ?? null;
}

export const DEFAULT_UNITS: Record<ConfigOptionField, string> = {
  cpu: '核',
  memory: 'MB',
  area: '',
  os: '',
  system_disk_size: 'GB',
  bw: 'Mbps',
  ip_num: '个',
};
