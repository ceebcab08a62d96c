import { Op } from 'sequelize';
import type { DomainDeps } from '../deps.js';

/** Sessions that ended more than a day ago carry no information worth keeping. */
export async function purgeEndedSessions(deps: DomainDeps, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - 86_400_000);
  return deps.db.models.AuthSession.destroy({
    where: { [Op.or]: [{ expires_at: { [Op.lt]: cutoff } }, { revoked_at: { [Op.lt]: cutoff } }] },
  });
}
