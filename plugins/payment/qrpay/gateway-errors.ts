/** Chinese messages for the gateway's codes and sub_codes; the gateway's own msg/sub_msg never reach a user. */

export type GatewayFailure = { message: string; errorCode: string; retryable: boolean };

const SUB_CODES: Record<string, GatewayFailure> = {
  'ACQ.TRADE_NOT_EXIST': { message: '交易不存在', errorCode: 'trade_not_exist', retryable: false },
  'ACQ.SYSTEM_ERROR': { message: '支付网关系统繁忙，请稍后重试', errorCode: 'gateway_busy', retryable: true },
  'ACQ.INVALID_PARAMETER': { message: '支付网关拒绝了请求参数', errorCode: 'invalid_parameter', retryable: false },
  'ACQ.TRADE_HAS_SUCCESS': { message: '该交易已支付', errorCode: 'trade_paid', retryable: false },
  'ACQ.TRADE_HAS_CLOSE': { message: '该交易已关闭', errorCode: 'trade_closed', retryable: false },
  'ACQ.TRADE_STATUS_ERROR': { message: '交易当前状态不允许此操作', errorCode: 'trade_status_error', retryable: false },
  'ACQ.CONTEXT_INCONSISTENT': { message: '交易信息与此前提交的不一致', errorCode: 'trade_inconsistent', retryable: false },
  'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL': { message: '退款金额超过可退金额', errorCode: 'refund_exceeds_paid', retryable: false },
  'ACQ.DISCORDANT_REPEAT_REQUEST': { message: '退款请求号已用于参数不同的退款', errorCode: 'refund_request_conflict', retryable: false },
  'ACQ.SELLER_BALANCE_NOT_ENOUGH': { message: '商户账户余额不足，暂时无法退款', errorCode: 'seller_balance_insufficient', retryable: true },
  'ACQ.REFUND_FEE_ERROR': { message: '退款金额无效', errorCode: 'invalid_refund_amount', retryable: false },
  'isv.invalid-signature': { message: '支付网关验签失败，请检查商户私钥与网关登记的公钥是否匹配', errorCode: 'merchant_signature_rejected', retryable: false },
  'isv.invalid-app-id': { message: '支付网关不认可该应用 ID，请检查插件配置', errorCode: 'invalid_app_id', retryable: false },
  'isv.invalid-signature-type': { message: '支付网关不支持当前签名方式', errorCode: 'invalid_sign_type', retryable: false },
};

const CODES: Record<string, GatewayFailure> = {
  '20000': { message: '支付网关服务暂不可用，请稍后重试', errorCode: 'gateway_unavailable', retryable: true },
  '20001': { message: '支付网关授权无效，请检查插件配置', errorCode: 'gateway_unauthorized', retryable: false },
  '40001': { message: '支付网关请求缺少必要参数', errorCode: 'missing_parameter', retryable: false },
  '40002': { message: '支付网关请求参数无效', errorCode: 'invalid_parameter', retryable: false },
  '40003': { message: '支付网关请求条件不满足', errorCode: 'condition_not_met', retryable: false },
  '40004': { message: '支付网关业务处理失败', errorCode: 'business_failed', retryable: false },
  '40006': { message: '支付应用权限不足，请检查网关后台的接口权限', errorCode: 'permission_denied', retryable: false },
};

const UNKNOWN: GatewayFailure = { message: '支付网关返回未知错误', errorCode: 'gateway_unknown_error', retryable: false };

export function describeGatewayFailure(code: string, subCode: string): GatewayFailure {
  return SUB_CODES[subCode] ?? CODES[code] ?? UNKNOWN;
}
