import { formatMoney } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';

/** The user's cash balance (zero before the first movement). */
export async function getBalance(deps: DomainDeps, userId: number): Promise<{ balance: string; currency: 'CNY'; updated_at: Date | null }> {
  const account = await deps.db.models.UserAccount.findByPk(userId);
  return { balance: formatMoney(account?.balance ?? 0), currency: 'CNY', updated_at: account?.updated_at ?? null };
}
