/** retryable: try again later (maintenance, HTML 5xx, timeouts); permanent: retrying will not help. */
export type ErrorKind = 'retryable' | 'permanent';

export type UpstreamFailureReason =
  | 'business'
  | 'auth'
  | 'login_failed'
  | 'validation'
  | 'verification_required'
  | 'phone_binding_required'
  | 'maintenance'
  | 'unknown_status'
  | 'http_error'
  | 'invalid_response'
  | 'timeout'
  | 'network'
  | 'invalid_input'
  | 'config';

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
}
