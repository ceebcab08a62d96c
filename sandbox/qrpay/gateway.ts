import type { KeyObject } from 'node:crypto';
import { parseDateTime } from '../../lib/time.js';
import { SERVER_ERROR_HTML } from './pages.js';
import { answerMember, requestSignContent, rsa2Sign, rsa2Verify } from './signing.js';
import type { SandboxSwitches } from './switches.js';
import type { TradeBook } from './trade-book.js';
import { isQrpayMethod, type GatewayAnswer, type QrpayMethod } from './types.js';

export type Reply = { status: number; contentType: string; body: string };

export type GatewayDeps = {
  appId: string;
  merchantPublicKey: KeyObject;
  gatewayPrivateKey: KeyObject;
  trades: TradeBook;
  switches: SandboxSwitches;
  /** Waits for a delay switch; false when the sandbox stopped meanwhile. */
  sleep(ms: number): Promise<boolean>;
};

function invalid(code: '40001' | '40002', subCode: string, subMsg: string): GatewayAnswer {
  return { code, msg: code === '40001' ? 'Missing Required Arguments' : 'Invalid Arguments', sub_code: subCode, sub_msg: subMsg };
}

function parseBiz(text: string | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A changed copy of an answer, so that the signature made over the original no longer matches. */
function tampered(answer: GatewayAnswer): GatewayAnswer {
  if (answer.total_amount !== undefined) return { ...answer, total_amount: '0.01' === answer.total_amount ? '0.02' : '0.01' };
  if (answer.refund_fee !== undefined) return { ...answer, refund_fee: '0.00' };
  return { ...answer, msg: `${answer.msg ?? ''} (altered)` };
}

/** The gateway endpoint: common-parameter checks, request signature, switches, method dispatch. */
export class QrpayGateway {
  constructor(private readonly deps: GatewayDeps) {}

  private answer(memberName: string, answer: GatewayAnswer, tamper = false): Reply {
    const text = JSON.stringify(answer);
    const signature = rsa2Sign(text, this.deps.gatewayPrivateKey);
    const sent = tamper ? JSON.stringify(tampered(answer)) : text;
    return {
      status: 200,
      contentType: 'application/json; charset=utf-8',
      body: `{${JSON.stringify(memberName)}:${sent},"sign":${JSON.stringify(signature)}}`,
    };
  }

  async handle(params: Record<string, string>): Promise<Reply | null> {
    const { switches } = this.deps;
    const method = params.method ?? '';
    switches.countCall(method === '' ? '(missing)' : method);

    const delay = switches.delayFor(method);
    if (delay > 0 && !(await this.deps.sleep(delay))) return null;

    if (!isQrpayMethod(method)) {
      const answer = method === '' ? invalid('40001', 'isv.missing-method', 'method is missing') : invalid('40002', 'isv.invalid-method', 'method does not exist');
      return this.answer('error_response', answer);
    }
    const member = answerMember(method);
    const problem = this.checkCommon(params);
    if (problem) return this.answer(member, problem);

    const failure = switches.takeFailure(method);
    if (failure?.mode === 'http500') return { status: 500, contentType: 'text/html; charset=utf-8', body: SERVER_ERROR_HTML };
    if (failure) {
      return this.answer(member, { code: failure.code, msg: failure.msg, sub_code: failure.subCode, sub_msg: failure.subMsg });
    }

    const biz = parseBiz(params.biz_content);
    if (!biz) return this.answer(member, invalid('40002', 'isv.invalid-parameter', 'biz_content is not a JSON object'));
    return this.answer(member, this.dispatch(method, biz, params.notify_url ?? null), switches.takeTamper(method));
  }

  private checkCommon(params: Record<string, string>): GatewayAnswer | null {
    if (!params.app_id) return invalid('40001', 'isv.missing-app-id', 'app_id is missing');
    if (!params.sign) return invalid('40001', 'isv.missing-signature', 'sign is missing');
    if (!params.timestamp) return invalid('40001', 'isv.missing-timestamp', 'timestamp is missing');
    if (params.app_id !== this.deps.appId) return invalid('40002', 'isv.invalid-app-id', 'app_id is invalid');
    if (params.sign_type !== 'RSA2') return invalid('40002', 'isv.invalid-signature-type', 'sign_type must be RSA2');
    if (params.charset !== undefined && params.charset.toLowerCase() !== 'utf-8') return invalid('40002', 'isv.invalid-charset', 'charset must be utf-8');
    if (params.format !== undefined && params.format !== 'JSON') return invalid('40002', 'isv.invalid-format', 'format must be JSON');
    if (params.version !== '1.0') return invalid('40002', 'isv.invalid-version', 'version must be 1.0');
    if (!parseDateTime(params.timestamp)) return invalid('40002', 'isv.invalid-timestamp', 'timestamp format is invalid');
    if (!rsa2Verify(requestSignContent(params), params.sign, this.deps.merchantPublicKey)) {
      return invalid('40002', 'isv.invalid-signature', 'signature verification failed');
    }
    return null;
  }

  private dispatch(method: QrpayMethod, biz: Record<string, unknown>, notifyUrl: string | null): GatewayAnswer {
    const { trades, switches } = this.deps;
    switch (method) {
      case 'qrpay.trade.precreate':
        return trades.precreate(biz, notifyUrl);
      case 'qrpay.trade.query':
        return trades.query(biz);
      case 'qrpay.trade.close':
        return trades.close(biz);
      case 'qrpay.trade.refund': {
        const { answer, executed } = trades.refund(biz);
        const outRequestNo = typeof biz.out_request_no === 'string' && biz.out_request_no !== '' ? biz.out_request_no : String(biz.out_trade_no ?? '');
        switches.countRefund(outRequestNo, executed);
        return answer;
      }
    }
  }
}
