/** The upstream's own (Chinese) messages. */
export const SANDBOX_MESSAGES = {
  ok: '请求成功',
  loginOk: '登录成功',
  loginFailed: '账号或API密钥错误',
  tokenInvalid: '登录信息已过期，请重新登录',
  notFound: '数据不存在',
  badParam: '参数错误',
  maintenance: '系统维护中，请稍后再试',
} as const;
