import { AppError, ErrorCode } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { findServiceView } from './find-service.js';
import { RENEWABLE_STATUSES } from './renewals/renewal-rules.js';
import { recordServiceEvent } from './service-events.js';

/**
 * The user's auto-renew switch: the scheduler pays this service's renewal invoices from the
 * balance while it is on. Local only: the upstream's own auto-renew is never switched or
 * synchronised (spec). Turning it on needs a renewable service (not one-time, not ended):
 * 40942; turning it off always works.
 */
export async function setAutoRenew(deps: DomainDeps, input: { serviceId: number; userId: number; enabled: boolean }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  if (input.enabled && (service.billing_period === 'onetime' || !RENEWABLE_STATUSES.includes(service.status))) {
    throw new AppError(ErrorCode.SERVICE_NOT_RENEWABLE, service.billing_period === 'onetime' ? '一次性付费的服务无需续费，不能开启自动续费' : '服务当前状态不可续费，不能开启自动续费');
  }
  if (service.auto_renew !== input.enabled) {
    await deps.db.sequelize.transaction(async (transaction) => {
      await deps.db.models.Service.update({ auto_renew: input.enabled }, { where: { id: service.id }, transaction });
      await recordServiceEvent(
        deps,
        {
          serviceId: service.id,
          kind: 'settings',
          stage: 'auto_renew',
          status: 'info',
          message: input.enabled ? '已开启自动续费' : '已关闭自动续费',
          operator: { type: 'user', id: input.userId },
        },
        transaction,
      );
    });
  }
  return { service_id: service.id, auto_renew: input.enabled };
}
