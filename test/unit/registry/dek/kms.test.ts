// Confluent's local KMS and its DEK material, checked against an independent implementation: the
// vector below was made with Python's `cryptography` (HKDF-SHA256 of the secret, no salt or info, 16
// bytes; AES-128-GCM; IV ‖ ciphertext ‖ tag), not by the code under test.
import { describe, expect, test } from "bun:test";
import { kekAead, KmsError, localAead, newDekMaterial } from "#src/registry/dek/kms.ts";

const VECTOR = "AAECAwQFBgcICQoL28IPV+iPkGiNM5D3cucID6DqmIiM5pkS7zL3FOU=";

describe("local-kms", () => {
  test("decrypts what another implementation wrapped with the same secret", () => {
    const plain = localAead("sluice-secret").decrypt(Buffer.from(VECTOR, "base64"));
    expect(Buffer.from(plain).toString()).toBe("a DEK to wrap");
  });

  test("wraps with a fresh IV and unwraps; a wrong secret or a changed byte fails", () => {
    const aead = localAead("s1");
    const a = aead.encrypt(Buffer.from("dek"));
    const b = aead.encrypt(Buffer.from("dek"));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(Buffer.from(aead.decrypt(a)).toString()).toBe("dek");
    expect(() => localAead("s2").decrypt(a)).toThrow(KmsError);
    const tampered = Buffer.from(a);
    tampered[14]! ^= 1;
    expect(() => aead.decrypt(tampered)).toThrow("decryption failed");
  });

  test("the secret comes from kmsProps, else LOCAL_SECRET; other KMS types have no driver here", () => {
    const wrapped = localAead("from-env").encrypt(Buffer.from("x"));
    expect(
      Buffer.from(
        kekAead({ kmsType: "local-kms", kmsKeyId: "k", kmsProps: {} }, { LOCAL_SECRET: "from-env" }).decrypt(wrapped),
      ).toString(),
    ).toBe("x");
    expect(() => kekAead({ kmsType: "local-kms", kmsKeyId: "k", kmsProps: {} }, {})).toThrow("cannot load secret");
    expect(() => kekAead({ kmsType: "aws-kms", kmsKeyId: "arn:aws:kms:eu-west-1:1:key/2", kmsProps: {} }, {})).toThrow(
      "No KMS driver supports: aws-kms://arn:aws:kms:eu-west-1:1:key/2",
    );
  });
});

test("DEK material is Tink's serialized key proto: AesGcmKey key_value (field 3), AesSivKey key_value (field 2)", () => {
  const gcm128 = newDekMaterial("AES128_GCM");
  expect([gcm128.length, gcm128[0], gcm128[1]]).toEqual([18, 0x1a, 16]);
  const gcm256 = newDekMaterial("AES256_GCM");
  expect([gcm256.length, gcm256[0], gcm256[1]]).toEqual([34, 0x1a, 32]);
  const siv = newDekMaterial("AES256_SIV");
  expect([siv.length, siv[0], siv[1]]).toEqual([66, 0x12, 64]);
});
