/**
 * transient: try again later with backoff (network, timeouts on reads, HTML 5xx, maintenance,
 * a token still refused after re-login). permanent: retrying the same request will not help.
 * ambiguous: a buying, paying or renewing call whose outcome is unknown (it may have been
 * committed upstream): reconcile (probe, check the order) before doing it again.
 */
export type ErrorKind = 'transient' | 'permanent' | 'ambiguous';

/** `data.error_code` values; stable, documented in README.md of this plugin. */
export type UpstreamFailureReason =
  | 'timeout'
  | 'network_error'
  | 'upstream_unavailable'
  | 'upstream_maintenance'
  | 'invalid_response'
  | 'token_rejected'
  | 'login_failed'
  | 'supplier_balance_insufficient'
  | 'out_of_stock'
  | 'product_gone'
  | 'cart_empty'
  | 'not_found'
  | 'validation_failed'
  | 'realname_required'
  | 'phone_binding_required'
  | 'business_error'
  | 'port_taken'
  | 'limit_reached'
  | 'unknown_status'
  | 'upstream_http_error'
  | 'unexpected_response'
  | 'invalid_input'
  | 'config_invalid'
  | 'unsupported_action';

export type UpstreamErrorInit = {
  reason: UpstreamFailureReason;
  kind: ErrorKind;
  /** Simplified Chinese, safe to show. */
  message: string;
  upstreamStatus?: number;
  httpStatus?: number;
  /** Raw upstream text: diagnostics only. */
  upstreamMessage?: string;
  bodySnippet?: string;
};

export class UpstreamError extends Error {
  readonly reason: UpstreamFailureReason;
  readonly kind: ErrorKind;
  readonly upstreamStatus: number | undefined;
  readonly httpStatus: number | undefined;
  readonly upstreamMessage: string | undefined;
  readonly bodySnippet: string | undefined;

  constructor(init: UpstreamErrorInit) {
    super(init.message);
    this.name = 'UpstreamError';
    this.reason = init.reason;
    this.kind = init.kind;
    this.upstreamStatus = init.upstreamStatus;
    this.httpStatus = init.httpStatus;
    this.upstreamMessage = init.upstreamMessage;
    this.bodySnippet = init.bodySnippet;
  }

  /** The same failure with another kind and message (raw details kept for diagnostics). */
  reclassify(kind: ErrorKind, message: string): UpstreamError {
    return new UpstreamError({
      reason: this.reason,
      kind,
      message,
      upstreamStatus: this.upstreamStatus,
      httpStatus: this.httpStatus,
      upstreamMessage: this.upstreamMessage,
      bodySnippet: this.bodySnippet,
    });
  }
}

/** A failure of our own input: permanent, nothing was sent. */
export function invalidInput(message: string): UpstreamError {
  return new UpstreamError({ reason: 'invalid_input', kind: 'permanent', message });
}

/** The upstream answered success but not in the shape we need. */
export function unexpectedResponse(message: string, kind: ErrorKind = 'permanent'): UpstreamError {
  return new UpstreamError({ reason: 'unexpected_response', kind, message });
}
