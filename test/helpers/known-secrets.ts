import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';

/**
 * Secret values that must never appear in any answer of the suite. The HTTP helper checks
 * every response body against this list; tests add the secrets they create.
 */
const secrets = new Set<string>([
  SANDBOX_CREDENTIALS.certify.appSecret,
  SANDBOX_CREDENTIALS.sms.accessKeySecret,
  SANDBOX_CREDENTIALS.smtp.password,
  SANDBOX_CREDENTIALS.upstream.apiKey,
  SANDBOX_CREDENTIALS.upstream2.apiKey,
]);

export function registerKnownSecret(value: string): void {
  if (value.length >= 8) secrets.add(value);
}

export function leakedSecrets(body: string): string[] {
  return [...secrets].filter((s) => body.includes(s));
}
