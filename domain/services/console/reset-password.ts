import { validationError } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { callConsole } from './console-call.js';
import { HOST_PASSWORD_PATTERN } from './generate-password.js';
import { requireConsoleAction } from './resolve-capabilities.js';

/** Sets the host's password upstream, then keeps it sealed here (for the logged reveal); never answered. */
export async function resetServicePassword(deps: DomainDeps, input: { serviceId: number; userId: number; password: string }) {
  if (!HOST_PASSWORD_PATTERN.test(input.password)) throw validationError({ password: ['密码需 8 到 32 位，包含字母和数字，且不含空格'] });
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'reset_password', input.userId);
  await callConsole(deps, {
    serviceId: service.id,
    userId: input.userId,
    stage: 'reset_password',
    action: 'upstream.host_action',
    payload: { action: 'reset_password', params: { password: input.password } },
    successMessage: '密码已重置',
  });
  await deps.db.models.Service.update({ password_sealed: deps.secretBox.seal(input.password) }, { where: { id: service.id } });
  return { service_id: service.id, done: true };
}
