import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type SandboxSecrets = { merchantPrivateKeyPem: string; merchantPublicKeyPem: string; captchaSigningKey: string };

/** Generates a secret once into DATA_DIR (mode 0600) and reads it back on later starts. */
function keep(file: string, create: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const value = create();
  writeFileSync(file, value, { mode: 0o600 });
  return value;
}

/** Dev only: the merchant RSA key the QR sandbox verifies, and the captcha signing key. */
export function devSandboxSecrets(dataDir: string): SandboxSecrets {
  const privateFile = join(dataDir, 'qrpay-merchant-key.pem');
  const publicFile = join(dataDir, 'qrpay-merchant-key.pub.pem');
  if (!existsSync(privateFile) || !existsSync(publicFile)) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(privateFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 });
    writeFileSync(publicFile, pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(), { mode: 0o600 });
  }
  const merchantPrivateKeyPem = readFileSync(privateFile, 'utf8');
  const merchantPublicKeyPem = readFileSync(publicFile, 'utf8');
  return { merchantPrivateKeyPem, merchantPublicKeyPem, captchaSigningKey: keep(join(dataDir, 'captcha-signing-key'), () => randomBytes(24).toString('base64url')) };
}
