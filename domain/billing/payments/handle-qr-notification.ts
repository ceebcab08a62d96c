import { AppError, ErrorCode } from '../../../lib/errors.js';
import { invokePlugin } from '../../../plugins/runtime/invoke.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { settleQrPayment } from './settle-qr-payment.js';

export type NotificationOutcome = 'settled' | 'repeated' | 'not_paid';

const REJECTIONS: Record<string, { code: number; message: string }> = {
  bad_signature: { code: ErrorCode.SIGNATURE_INVALID, message: '支付通知签名校验失败' },
  app_id_mismatch: { code: ErrorCode.NOTIFY_APP_MISMATCH, message: '支付通知的应用与本平台配置不一致' },
};

/**
 * The QR gateway's notification: verified by the plugin's `payment.verify_notify` first
 * (signature and app id; a bad signature is 40001/HTTP 401 and nothing else happens), then a
 * paid trade is settled through `settleQrPayment` (our payment must exist, the amount must
 * match exactly). Repeats change nothing and are answered as success, like non-final trade
 * states. The settlement's transaction records both follow-ups in the outbox, performed by the
 * relay: the fulfilment (`fulfil:<invoice id>`) and the signal that makes the invoice's payment
 * workflow look now instead of at its next poll (`signal_payment`). Nothing here calls Temporal.
 */
export async function handleQrNotification(deps: DomainDeps, fields: Record<string, string>, audit: Audit): Promise<NotificationOutcome> {
  const verified = await invokePlugin(deps, {
    domain: 'payment',
    slug: 'qrpay',
    action: 'payment.verify_notify',
    payload: fields,
    actor: audit.operator,
    ...(audit.traceId ? { traceId: audit.traceId } : {}),
  });
  const data = verified.data;
  if (!verified.success || data.verified !== true) {
    const rejection = REJECTIONS[String(data.reason)] ?? { code: ErrorCode.BAD_REQUEST, message: '支付通知内容无效' };
    throw new AppError(rejection.code, rejection.message);
  }
  if (data.paid !== true) return 'not_paid';
  if (typeof data.out_trade_no !== 'string' || typeof data.trade_no !== 'string' || typeof data.total_amount !== 'string') {
    throw new AppError(ErrorCode.BAD_REQUEST, '支付通知内容无效');
  }
  const settled = await settleQrPayment(
    deps,
    {
      paymentNo: data.out_trade_no,
      tradeNo: data.trade_no,
      amount: data.total_amount,
      source: 'notify',
      notifyId: typeof data.notify_id === 'string' ? data.notify_id : null,
    },
    audit,
  );
  return settled.changed ? 'settled' : 'repeated';
}
