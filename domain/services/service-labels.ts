import type { ServiceStatus } from '../../db/models/service.js';
import { isProductType } from '../catalogue/product-types.js';
import type { ProductType } from '../../db/models/catalogue.js';

export const SERVICE_STATUS_LABELS: Record<ServiceStatus, string> = {
  pending: '待开通',
  provisioning: '开通中',
  active: '运行中',
  suspended: '已暂停',
  terminated: '已终止',
  cancelled: '已取消',
  failed: '开通失败',
};

/**
 * Type names older data and upstream catalogues use, mapped onto the 8 fixed types (spec:
 * "legacy values normalised to the 8 types"). Anything unknown is `other`.
 */
const LEGACY_TYPES: Record<string, ProductType> = {
  cloud: 'cloud_server',
  vps: 'cloud_server',
  ecs: 'cloud_server',
  dcimcloud: 'cloud_server',
  server: 'cloud_server',
  game: 'game_cloud',
  gamecloud: 'game_cloud',
  desktop: 'cloud_desktop',
  clouddesktop: 'cloud_desktop',
  dcim: 'bare_metal',
  baremetal: 'bare_metal',
  dedicated: 'physical_machine',
  physical: 'physical_machine',
  colocation: 'physical_machine',
  hosting: 'web_hosting',
  host: 'web_hosting',
  cpanel: 'web_hosting',
  virtualhost: 'web_hosting',
  cdn: 'cdn',
};

export function normaliseProductType(value: string | null | undefined): ProductType {
  const text = (value ?? '').trim().toLowerCase();
  if (isProductType(text)) return text;
  return LEGACY_TYPES[text.replace(/[\s_-]/g, '')] ?? 'other';
}
