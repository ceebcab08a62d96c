import { AppError, ErrorCode } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { callConsole } from './console-call.js';
import { requireConsole } from './require-console.js';

/**
 * The upstream's VNC console URL (it carries the upstream's own one-time token). The VNC
 * password never leaves the plugin (spec: a VNC answer never carries a password).
 */
export async function openVncConsole(deps: DomainDeps, input: { serviceId: number; userId: number }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  requireConsole(service, 'vnc');
  const data = await callConsole(deps, {
    serviceId: service.id,
    userId: input.userId,
    stage: 'vnc',
    action: 'upstream.host_action',
    payload: { action: 'vnc' },
    successMessage: '已获取 VNC 控制台地址',
  });
  const url = typeof data['console_url'] === 'string' ? data['console_url'] : '';
  if (!url) throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '上游未返回控制台地址，请稍后再试');
  return { service_id: service.id, console_url: url };
}
