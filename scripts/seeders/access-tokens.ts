import { createPersonalToken } from '../../domain/auth/personal-tokens.js';
import type { DomainDeps } from '../../domain/deps.js';
import { DEMO_CLIENT } from './demo.js';

export const DEMO_TOKEN_NAME = '演示令牌';

/**
 * A personal access token of the demo client (docs/security.md "Personal access tokens"), every scope, a
 * year. The token is answered only by the start that creates it (dev prints it once, like the
 * admin password): afterwards only its hash exists. Checked before written by its name.
 */
export async function seedDemoAccessToken(deps: DomainDeps): Promise<{ token: string | null }> {
  const { User, PersonalAccessToken } = deps.db.models;
  const user = await User.findOne({ where: { email: DEMO_CLIENT.email } });
  if (!user) return { token: null };
  const existing = await PersonalAccessToken.findOne({ where: { user_id: user.id, name: DEMO_TOKEN_NAME } });
  if (existing) return { token: null };
  const { token } = await createPersonalToken(deps, user.id, { name: DEMO_TOKEN_NAME, scopes: ['read', 'purchase', 'console'], expiresInDays: 365 }, { ip: '' });
  return { token };
}
