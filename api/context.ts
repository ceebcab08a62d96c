import type { DomainDeps } from '../domain/deps.js';
import type { TemporalGateway } from '../lib/temporal.js';
import type { AdminPrincipal, ClientPrincipal } from '../domain/auth/principals.js';

/** Everything a request handler may reach: built once per process by `createApp`. */
export type AppDeps = DomainDeps & {
  temporal: TemporalGateway;
};

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    requestId: string;
    admin: AdminPrincipal;
    client: ClientPrincipal;
  };
};
