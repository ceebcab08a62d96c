import { createTransport } from 'nodemailer';
import type { MailAccount } from './config.js';

export type OutgoingMail = { to: string[]; subject: string; text: string; html?: string };

export type AttemptOutcome = { ok: true; messageId: string } | { ok: false; code: string; responseCode: number | null; raw: string };

function transporterFor(account: MailAccount, timeoutMs: number) {
  return createTransport({
    host: account.host,
    port: account.port,
    secure: account.secure,
    auth: account.user === '' ? undefined : { user: account.user, pass: account.password },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

function failure(err: unknown): AttemptOutcome {
  const e = err instanceof Error ? (err as Error & { code?: unknown; responseCode?: unknown; response?: unknown }) : null;
  return {
    ok: false,
    code: typeof e?.code === 'string' ? e.code : 'EUNKNOWN',
    responseCode: typeof e?.responseCode === 'number' ? e.responseCode : null,
    raw: (typeof e?.response === 'string' ? e.response : (e?.message ?? String(err))).slice(0, 1000),
  };
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(Object.assign(new Error('aborted'), { code: 'EABORTED' }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(Object.assign(new Error('aborted'), { code: 'EABORTED' }));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** Sends through one account; never throws. The transport is closed afterwards. */
export async function sendWith(account: MailAccount, mail: OutgoingMail, timeoutMs: number, signal: AbortSignal): Promise<AttemptOutcome> {
  const transporter = transporterFor(account, timeoutMs);
  try {
    const info = await abortable(transporter.sendMail({ from: account.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html }), signal);
    return { ok: true, messageId: typeof info.messageId === 'string' ? info.messageId : '' };
  } catch (err) {
    return failure(err);
  } finally {
    transporter.close();
  }
}

/** Connects and authenticates without sending; never throws. */
export async function verifyAccount(account: MailAccount, timeoutMs: number, signal: AbortSignal): Promise<AttemptOutcome> {
  const transporter = transporterFor(account, timeoutMs);
  try {
    await abortable(transporter.verify(), signal);
    return { ok: true, messageId: '' };
  } catch (err) {
    return failure(err);
  } finally {
    transporter.close();
  }
}

const MESSAGES: Record<string, string> = {
  EAUTH: '邮箱账户认证失败',
  ECONNECTION: '无法连接邮件服务器',
  ESOCKET: '无法连接邮件服务器',
  EDNS: '无法解析邮件服务器地址',
  ETIMEDOUT: '连接邮件服务器超时',
  EABORTED: '发送超时',
  EENVELOPE: '收件地址被邮件服务器拒绝',
  EMESSAGE: '邮件被服务器拒收',
  ETLS: '与邮件服务器建立加密连接失败',
};

export function attemptMessage(code: string): string {
  return MESSAGES[code] ?? '邮件发送失败';
}
