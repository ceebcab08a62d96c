import { validationError } from '../../../lib/errors.js';
import type { ConfigOptionItem } from '../../catalogue/config-options.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { recordServiceEvent } from '../service-events.js';
import { callConsole } from './console-call.js';
import { generateHostPassword, HOST_PASSWORD_PATTERN } from './generate-password.js';
import { requireConsoleAction } from './resolve-capabilities.js';

/** The OS choices of the service's product (`os` option): id → label. */
async function osChoices(deps: DomainDeps, productId: number): Promise<Map<number, string>> {
  const product = await deps.db.models.Product.findByPk(productId, { attributes: ['id', 'config_options'] });
  const options = (product?.config_options ?? []) as ConfigOptionItem[];
  const os = options.find((o) => o.field === 'os');
  return new Map((os?.sub ?? []).map((s) => [s.id, s.label]));
}

/**
 * Reinstalls the host with one of the product's operating systems (`os_id`: a sub-option id of
 * its `os` option, which for imported products is the upstream's id). The new root password is
 * the one given or a generated one; it is stored sealed (for the reveal) and never answered.
 */
export async function reinstallService(deps: DomainDeps, input: { serviceId: number; userId: number; osId: number; password?: string | undefined }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'reinstall', input.userId);
  const choices = await osChoices(deps, service.product_id);
  const label = choices.get(input.osId);
  if (label === undefined) throw validationError({ os_id: ['该操作系统不在此商品的可选系统中'] });
  if (input.password !== undefined && !HOST_PASSWORD_PATTERN.test(input.password)) {
    throw validationError({ password: ['密码需 8 到 32 位，包含字母和数字，且不含空格'] });
  }
  const password = input.password ?? generateHostPassword();
  await callConsole(deps, {
    serviceId: service.id,
    userId: input.userId,
    stage: 'reinstall',
    action: 'upstream.host_action',
    payload: { action: 'reinstall', params: { os_id: input.osId, password } },
    detail: { os_id: input.osId, os: label },
    successMessage: `重装系统任务已提交：${label}`,
  });
  await deps.db.sequelize.transaction(async (transaction) => {
    await deps.db.models.Service.update({ os: label.slice(0, 128), password_sealed: deps.secretBox.seal(password) }, { where: { id: service.id }, transaction });
    await recordServiceEvent(
      deps,
      { serviceId: service.id, kind: 'credential', stage: 'password_stored', status: 'info', message: '重装系统后已保存新密码', operator: { type: 'user', id: input.userId } },
      transaction,
    );
  });
  return { service_id: service.id, os_id: input.osId, os: label, done: true, password_generated: input.password === undefined };
}
