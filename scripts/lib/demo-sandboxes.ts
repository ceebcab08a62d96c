import { join } from 'node:path';
import { type RunningSandboxes, startSandboxes } from '../../sandbox/launcher.js';
import { envPort } from './ports.js';
import type { SandboxSecrets } from './sandbox-secrets.js';

/**
 * The sandbox third parties of `npm run dev` (`SANDBOX_*_PORT`, 181xx) and `npm run cluster`
 * (`CLUSTER_SANDBOX_*_PORT`, 182xx), so both run side by side. Each upstream (the first, and
 * the backup supplier's on `*_UPSTREAM2_PORT`) keeps its hosts and orders in the data folder
 * across restarts, as a real one does: a restarted demo must not hand out host ids our services
 * already hold.
 */
export function startDemoSandboxes(dataDir: string, secrets: SandboxSecrets, names: { envPrefix: string; basePort: number }): Promise<RunningSandboxes> {
  const port = (name: string, offset: number) => envPort(`${names.envPrefix}_${name}_PORT`, names.basePort + offset);
  return startSandboxes({
    merchantPublicKeyPem: secrets.merchantPublicKeyPem,
    upstreamStateFile: join(dataDir, 'sandbox-upstream.json'),
    upstream2StateFile: join(dataDir, 'sandbox-upstream2.json'),
    ports: {
      qrpay: port('QRPAY', 1),
      certify: port('CERTIFY', 2),
      sms: port('SMS', 3),
      mail: port('MAIL', 4),
      smtp: port('SMTP', 25),
      upstream: port('UPSTREAM', 5),
      upstream2: port('UPSTREAM2', 6),
    },
  });
}
