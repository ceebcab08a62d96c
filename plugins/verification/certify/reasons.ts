/** Provider fail codes → our normalised reason codes and Chinese explanations. */
const REASONS: Record<string, { code: string; message: string }> = {
  FACE_MISMATCH: { code: 'face_mismatch', message: '人脸比对未通过' },
  ID_MISMATCH: { code: 'identity_mismatch', message: '姓名与身份证号不一致' },
  USER_CANCELLED: { code: 'user_cancelled', message: '用户取消了认证' },
  TIMEOUT: { code: 'expired', message: '认证已超时' },
};

export function normaliseReason(providerCode: unknown): { code: string; message: string } {
  return (typeof providerCode === 'string' ? REASONS[providerCode] : undefined) ?? { code: 'other', message: '认证未通过' };
}
