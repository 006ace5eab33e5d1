import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sameSecret } from '../identity/secrets';

/**
 * The service's one secret key, from SECRETS_KEY (32 bytes, base64), or for a local install a key
 * generated once into DATA_DIR/secrets.key, shared by the API and the worker. Sub-keys per use
 * are derived from it, so encryption and link signing never share a key.
 */
export function loadSecretsKey(config: { SECRETS_KEY?: string; dataDir: string }): Buffer {
  if (config.SECRETS_KEY) {
    const key = Buffer.from(config.SECRETS_KEY, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32)');
    return key;
  }
  const file = path.join(config.dataDir, 'secrets.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return loadSecretsKey({ SECRETS_KEY: fs.readFileSync(file, 'utf8').trim(), dataDir: config.dataDir });
}

const subKey = (key: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));

export class SecretBox {
  private readonly encryptionKey: Buffer;
  private readonly signingKey: Buffer;

  constructor(key: Buffer) {
    this.encryptionKey = subKey(key, 'provider-secrets');
    this.signingKey = subKey(key, 'signed-links');
  }

  /** AES-256-GCM; `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt<T>(sealed: string): T {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1') throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return JSON.parse(
      Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8'),
    ) as T;
  }

  /** An HMAC over the parts of a link (purpose, id, expiry), base64url. */
  sign(...parts: string[]): string {
    return createHmac('sha256', this.signingKey).update(parts.join('\n')).digest('base64url');
  }

  verify(signature: string, ...parts: string[]): boolean {
    return sameSecret(signature, this.sign(...parts));
  }
}
