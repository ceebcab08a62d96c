import { type DestinationStream, pino, type Logger } from 'pino';

/**
 * Paths whose values never reach a log line: credentials, tokens, secrets and anything a
 * third party might echo back. Keys are matched at the top level and one or two levels down.
 */
const SENSITIVE_KEYS = [
  'password',
  'new_password',
  'old_password',
  'password_hash',
  'secret',
  'api_key',
  'apiKey',
  'token',
  'access_token',
  'refresh_token',
  'jwt',
  'authorization',
  'Authorization',
  'cookie',
  'private_key',
  'sign',
  'id_number',
];

export const redactPaths = [
  ...SENSITIVE_KEYS,
  ...SENSITIVE_KEYS.map((k) => `*.${k}`),
  ...SENSITIVE_KEYS.map((k) => `*.*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
];

export type { Logger };

/** A pino logger with the redaction above; to stdout unless `destination` is given (tests capture lines). */
export function createLogger(level: string, name = 'platform', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: redactPaths, censor: '[REDACTED]' }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}
