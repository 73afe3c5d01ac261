// The KMS calls a shared KEK needs: the registry itself wraps and unwraps DEKs with the KEK. Only
// Confluent's `local-kms` type is reachable from here (its key is derived from a secret, no network);
// AWS, Azure, GCP and HashiCorp Vault need their SDKs and credentials, so for those the registry fails
// as Confluent's does when no KMS driver supports a KEK: the caller answers 50070.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { DekAlgorithm } from "./records.ts";

/** A KMS failure; Confluent's GeneralSecurityException message. */
export class KmsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KmsError";
  }
}

/** A KEK's AEAD, as Tink's KmsClient.getAead gives it. */
export interface KekAead {
  encrypt(plaintext: Uint8Array): Uint8Array;
  decrypt(ciphertext: Uint8Array): Uint8Array;
}

export interface KekLocation {
  kmsType: string;
  kmsKeyId: string;
  kmsProps: Record<string, string>;
}

const LOCAL_PREFIX = "local-kms://";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The KEK's AEAD; throws KmsError when no driver supports its KMS or it cannot be set up. */
export function kekAead(kek: KekLocation, env: Record<string, string | undefined> = process.env): KekAead {
  // Confluent's key URL: the KMS type, "://", the key id.
  const url = `${kek.kmsType}://${kek.kmsKeyId}`;
  if (!url.toLowerCase().startsWith(LOCAL_PREFIX)) throw new KmsError(`No KMS driver supports: ${url}`);
  const secret = kek.kmsProps.secret ?? env.LOCAL_SECRET;
  if (secret === undefined) throw new KmsError("cannot load secret");
  return localAead(secret);
}

/**
 * Confluent's local KMS: AES-128-GCM with a key of HKDF-SHA256(secret) (no salt, no info, 16 bytes),
 * in Tink's raw AEAD format: a 12-byte IV, the ciphertext, the 16-byte tag.
 */
export function localAead(secret: string): KekAead {
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), Buffer.alloc(0), 16));
  return {
    encrypt(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-128-gcm", key, iv);
      return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    },
    decrypt(ciphertext) {
      if (ciphertext.length < IV_BYTES + TAG_BYTES) throw new KmsError("ciphertext too short");
      const decipher = createDecipheriv("aes-128-gcm", key, ciphertext.subarray(0, IV_BYTES));
      decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(ciphertext.subarray(IV_BYTES, ciphertext.length - TAG_BYTES)),
          decipher.final(),
        ]);
      } catch {
        throw new KmsError("decryption failed");
      }
    },
  };
}

/**
 * A new DEK as Confluent's Cryptor makes one: Tink's serialized key proto (AesGcmKey: key_value is
 * field 3; AesSivKey: field 2; version 0 is left out), which the clients turn back into a Tink key.
 */
export function newDekMaterial(algorithm: DekAlgorithm): Uint8Array {
  const [field, size] = algorithm === "AES128_GCM" ? [3, 16] : algorithm === "AES256_GCM" ? [3, 32] : [2, 64];
  return Buffer.concat([Buffer.from([(field << 3) | 2, size]), randomBytes(size)]);
}
