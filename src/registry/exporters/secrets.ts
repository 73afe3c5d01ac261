// The secrets of an exporter's destination config (passwords, user info, tokens, client secrets, keys),
// as Confluent keeps them: encrypted in `_exporter_configs` with the registry's password.encoder.secret
// (AES-256-GCM here, a random IV per value), decrypted only to call the destination, and never
// answered (shown as "[hidden]"). Without a password.encoder.secret they are stored as given.
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from "node:crypto";

/** Config entries whose values are secrets. */
const SECRET = /(password|user\.info|\.token|secret|\.key)$/;
const SEALED = "sluice-encrypted:v1:";
const HIDDEN = "[hidden]";

export const isSecret = (key: string) => SECRET.test(key);
export const isSealed = (value: string) => value.startsWith(SEALED);

export class PasswordEncoder {
  private readonly key: Buffer;

  constructor(secret: string) {
    // One key per process: a fixed salt, as the secret itself is the registry's own, not a user's.
    this.key = pbkdf2Sync(secret, "sluice-password-encoder", 100_000, 32, "sha256");
  }

  seal(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const sealed = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    return `${SEALED}${iv.toString("base64")}:${cipher.getAuthTag().toString("base64")}:${sealed.toString("base64")}`;
  }

  open(value: string): string {
    const [iv, tag, sealed] = value.slice(SEALED.length).split(":");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv ?? "", "base64"));
    decipher.setAuthTag(Buffer.from(tag ?? "", "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed ?? "", "base64")), decipher.final()]).toString("utf8");
  }
}

/** The config as stored: secrets encrypted (when the registry has a password.encoder.secret). */
export function sealSecrets(config: Record<string, string>, encoder?: PasswordEncoder): Record<string, string> {
  if (!encoder) return config;
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, isSecret(k) && !isSealed(v) ? encoder.seal(v) : v]),
  );
}

/** The config to call the destination with: secrets decrypted. */
export function openSecrets(config: Record<string, string>, encoder?: PasswordEncoder): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => {
      if (!isSealed(v)) return [k, v];
      if (!encoder)
        throw new Error(
          `the exporter's ${k} is encrypted: the registry needs the password.encoder.secret it was set with`,
        );
      try {
        return [k, encoder.open(v)];
      } catch {
        throw new Error(`the exporter's ${k} cannot be decrypted with this registry's password.encoder.secret`);
      }
    }),
  );
}

/** No REST answer reveals a secret: passwords, user info, tokens, keys and a URL's password. */
export function hideSecrets(config: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [
      k,
      isSecret(k) ? HIDDEN : k === "schema.registry.url" ? hideUrlPassword(v) : v,
    ]),
  );
}

export function hideUrlPassword(urls: string): string {
  return urls.replace(/(\/\/[^:/@]*):[^@/]*@/g, `$1:${HIDDEN}@`);
}
