import { type CertifySandbox, startCertifySandbox } from './certify/server.js';
import { type MailSandbox, startMailSandbox } from './mail/server.js';
import { startQrpaySandbox } from './qrpay/server.js';
import { type SmsSandbox, startSmsSandbox } from './sms/server.js';
import { startUpstreamFinanceSandbox } from './upstream-finance/server.js';
import type { UpstreamFinanceSandboxOptions } from './upstream-finance/types.js';

export type SandboxPorts = { qrpay: number; certify: number; sms: number; mail: number; smtp: number; upstream: number; upstream2: number };

/** Credentials the sandboxes accept; dev and tests configure the plugins with the same values. */
export const SANDBOX_CREDENTIALS = {
  qrpayAppId: 'sandbox-qrpay-app',
  certify: { appId: 'sandbox-certify-app', appSecret: 'sandbox-certify-secret-0001' },
  sms: { accessKeyId: 'sandbox-sms-key', accessKeySecret: 'sandbox-sms-secret-0001', signName: '主机平台' },
  smtp: { user: 'platform', password: 'sandbox-smtp-pass-0001' },
  upstream: { username: 'reseller@example.com', apiKey: 'sandbox-api-key-0001' },
  upstream2: { username: 'backup@example.com', apiKey: 'sandbox-api-key-0002' },
} as const;

/**
 * The second upstream (the demo's backup supplier, issue #38): the same protocol and catalogue
 * with its own account, credit and prices. Its Hong Kong cloud server (101) costs less than at
 * the first one (49.00 a month against 59.00, every cycle below), so a product bound to both
 * with the `lowest_cost` policy buys here; a new account, it holds no hosts yet.
 */
export const SECOND_UPSTREAM = {
  accounts: [SANDBOX_CREDENTIALS.upstream2],
  credit: '2000.00',
  hostsPerAccount: 0,
  prices: { 101: { cycles: { hour: '0.10', monthly: '49.00', quarterly: '139.00', semiannually: '269.00', annually: '499.00' } } },
} satisfies UpstreamFinanceSandboxOptions;

export type RunningSandboxes = {
  qrpay: Awaited<ReturnType<typeof startQrpaySandbox>>;
  certify: CertifySandbox;
  sms: SmsSandbox;
  mail: MailSandbox;
  upstream: Awaited<ReturnType<typeof startUpstreamFinanceSandbox>>;
  upstream2: Awaited<ReturnType<typeof startUpstreamFinanceSandbox>>;
  stop(): Promise<void>;
};

/**
 * Starts every third-party stand-in on loopback: the QR gateway, the certify provider, the
 * SMS provider, the SMTP sink and the upstream finance API, twice (the second as
 * `SECOND_UPSTREAM`). Port 0 picks a free port.
 */
export async function startSandboxes(options: {
  ports?: Partial<SandboxPorts>;
  merchantPublicKeyPem: string;
  upstreamStateFile?: string;
  upstream2StateFile?: string;
}): Promise<RunningSandboxes> {
  const ports = options.ports ?? {};
  const c = SANDBOX_CREDENTIALS;
  const started: Array<{ stop(): Promise<void> }> = [];
  const track = <T extends { stop(): Promise<void> }>(s: T) => {
    started.push(s);
    return s;
  };
  const stop = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => {});
  };
  try {
    const qrpay = track(
      await startQrpaySandbox({ port: ports.qrpay ?? 0, merchantPublicKeyPem: options.merchantPublicKeyPem, appId: c.qrpayAppId }),
    );
    const certify = track(await startCertifySandbox({ port: ports.certify ?? 0, ...c.certify }));
    const sms = track(
      await startSmsSandbox({ port: ports.sms ?? 0, accessKeys: { [c.sms.accessKeyId]: c.sms.accessKeySecret }, signNames: [c.sms.signName] }),
    );
    const mail = track(await startMailSandbox({ port: ports.mail ?? 0, smtpPort: ports.smtp ?? 0, users: { [c.smtp.user]: c.smtp.password } }));
    const upstream = track(await startUpstreamFinanceSandbox({ port: ports.upstream ?? 0, accounts: [c.upstream], ...(options.upstreamStateFile ? { stateFile: options.upstreamStateFile } : {}) }));
    const upstream2 = track(
      await startUpstreamFinanceSandbox({ port: ports.upstream2 ?? 0, ...SECOND_UPSTREAM, ...(options.upstream2StateFile ? { stateFile: options.upstream2StateFile } : {}) }),
    );
    return { qrpay, certify, sms, mail, upstream, upstream2, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
