import { notFound } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { readServiceViews, type ServiceView } from './service-view.js';

/** One service; with `userId`, only that user's (another's is 40400, never shown). */
export async function findServiceView(deps: DomainDeps, serviceId: number, userId?: number): Promise<ServiceView> {
  const [view] =
    userId === undefined
      ? await readServiceViews(deps, 's.id = $1', [serviceId])
      : await readServiceViews(deps, 's.id = $1 AND s.user_id = $2', [serviceId, userId]);
  if (!view) throw notFound('服务不存在');
  return view;
}
