import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Dev only: APP_SECRET_KEY from the environment, else one generated once and kept in DATA_DIR. */
export function devSecretKey(dataDir: string): string {
  if (process.env.APP_SECRET_KEY) return process.env.APP_SECRET_KEY;
  const file = join(dataDir, 'app-secret-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}
