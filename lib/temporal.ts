import { Client, Connection } from '@temporalio/client';

/**
 * One lazily opened Temporal connection per process. The API stays up (and says so on
 * /api/health) when Temporal is briefly unreachable, instead of refusing to start.
 */
export type TemporalGateway = {
  client(): Promise<Client>;
  check(): Promise<boolean>;
  close(): Promise<void>;
};

export function createTemporalGateway(options: { address: string; namespace: string }): TemporalGateway {
  let pending: Promise<{ connection: Connection; client: Client }> | null = null;
  const open = () => {
    if (!pending) {
      pending = Connection.connect({ address: options.address, connectTimeout: '2s' })
        .then((connection) => ({ connection, client: new Client({ connection, namespace: options.namespace }) }))
        .catch((err: unknown) => {
          pending = null;
          throw err;
        });
    }
    return pending;
  };
  return {
    async client() {
      return (await open()).client;
    },
    async check() {
      try {
        const { connection } = await open();
        const res = await connection.healthService.check({});
        return res.status === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (!pending) return;
      const p = pending;
      pending = null;
      await p.then((x) => x.connection.close()).catch(() => {});
    },
  };
}
