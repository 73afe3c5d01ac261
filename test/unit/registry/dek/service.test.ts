// The DEK registry's rules (Confluent's DekRegistryResource and AbstractDekRegistry) over its real
// log on an embedded broker: no HTTP in between.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { keysLog } from "#src/registry/dek/keys-log.ts";
import { localAead } from "#src/registry/dek/kms.ts";
import { DekRegistry, type DekLog } from "#src/registry/dek/service.ts";
import { RegistryError } from "#src/registry/errors.ts";
import { tempBroker, type TempBroker } from "../../../fixtures/embedded-broker.ts";

let broker: TempBroker;
let log: DekLog;
let dek: DekRegistry;

beforeEach(async () => {
  broker = await tempBroker();
  log = keysLog(broker.broker, {
    topic: "_dek_registry_keys",
    replicationFactor: 1,
    timeoutMs: 5000,
    initTimeoutMs: 5000,
  });
  await log.start();
  dek = new DekRegistry(log, { maxKeys: 3, env: {} });
});
afterEach(async () => {
  await log.stop();
  await broker.close();
});

/** The error a call fails with, as {status, code, message}. */
async function failure(call: () => unknown): Promise<{ status: number; code: number; message: string }> {
  try {
    await call();
  } catch (err) {
    if (err instanceof RegistryError) return { status: err.status, code: err.errorCode, message: err.message };
    throw err;
  }
  throw new Error("expected a failure");
}

const localKek = (name: string, shared = false, extra: Record<string, unknown> = {}) =>
  dek.createKek(
    { name, kmsType: "local-kms", kmsKeyId: "key-1", kmsProps: { secret: "s3cret" }, shared, ...extra },
    false,
  );

describe("KEKs", () => {
  test("names: a letter or '_' first, then letters, digits, '_' or '-' (Unicode letters too), at most 256", async () => {
    expect((await localKek("_ä-1")).id.name).toBe("_ä-1");
    for (const name of ["1abc", "a b", "", "a".repeat(257), "a/b"]) {
      expect(await failure(() => localKek(name))).toEqual({
        status: 422,
        code: 42271,
        message: "Invalid or missing value for field 'name' of key",
      });
    }
  });

  test("kmsKeyId is checked before kmsType, then the key id's shape for the cloud KMS types; types are normalised", async () => {
    expect((await failure(() => dek.createKek({ name: "k" }, false))).message).toBe(
      "Invalid or missing value for field 'kmsKeyId' of key",
    );
    expect((await failure(() => dek.createKek({ name: "k", kmsKeyId: "x" }, false))).message).toBe(
      "Invalid or missing value for field 'kmsType' of key",
    );
    expect((await failure(() => dek.createKek({ name: "k", kmsKeyId: "x", kmsType: "aws-kms" }, false))).message).toBe(
      "Invalid or missing value for field 'kmsKeyId' of key",
    );
    expect(
      (await dek.createKek({ name: "k", kmsKeyId: "arn:aws:kms:eu:1:key/1", kmsType: "AWS" }, false)).value.kmsType,
    ).toBe("aws-kms");
  });

  test("creating an existing KEK again is 40971, even unchanged; unchanged after a soft delete, it undeletes", async () => {
    await localKek("k");
    expect(await failure(() => localKek("k"))).toEqual({
      status: 409,
      code: 40971,
      message: "Key 'k' already exists; use a different value",
    });
    await dek.deleteKek("k", false);
    expect(await failure(() => localKek("k", true))).toMatchObject({ code: 40971 });
    expect((await localKek("k")).value.deleted).toBe(false);
  });

  test("update keeps what is not sent, clears what is sent as null; a soft-deleted KEK is not found", async () => {
    await localKek("k", false, { doc: "first" });
    const updated = await dek.updateKek("k", { shared: true, kmsProps: null }, false);
    expect(updated.value).toMatchObject({ doc: "first", shared: true, kmsProps: {} });
    await dek.deleteKek("k", false);
    expect(await failure(() => dek.updateKek("k", { doc: "x" }, false))).toEqual({
      status: 404,
      code: 40470,
      message: "Key 'k' not found",
    });
  });

  test("delete: references block it (42272), a permanent delete needs a soft one first (40471)", async () => {
    await localKek("k");
    await dek.createDek("k", "s", { encryptedKeyMaterial: "QQ==" }, false);
    expect(await failure(() => dek.deleteKek("k", false))).toEqual({
      status: 422,
      code: 42272,
      message: "One or more references exist to the key 'k'",
    });
    await dek.deleteDek("k", "s", undefined, false);
    // A soft-deleted DEK still blocks a permanent delete of its KEK.
    await dek.deleteKek("k", false);
    expect(await failure(() => dek.deleteKek("k", true))).toMatchObject({ code: 42272 });
    await dek.undeleteKek("k");
    await dek.deleteDek("k", "s", undefined, true);
    expect(await failure(() => dek.deleteKek("k", true))).toEqual({
      status: 404,
      code: 40471,
      message: "Key 'k' was not deleted first before being permanently deleted",
    });
    await dek.deleteKek("k", false);
    await dek.deleteKek("k", true);
    expect(await failure(() => dek.getKek("k", true))).toMatchObject({ code: 40470 });
  });

  test("at most dek.registry.max.keys: Confluent refuses once the count is above it (40972)", async () => {
    for (const n of [1, 2, 3, 4]) await localKek(`k${n}`);
    expect(await failure(() => localKek("k5"))).toEqual({
      status: 409,
      code: 40972,
      message: "A maximum of 3 keys already exist",
    });
  });

  test("subjectPrefix lists the KEKs having a DEK of such a subject", async () => {
    await localKek("a");
    await localKek("b");
    await dek.createDek("b", "orders-value", { encryptedKeyMaterial: "QQ==" }, false);
    expect(dek.kekNames([], false)).toEqual(["a", "b"]);
    expect(dek.kekNames(["orders"], false)).toEqual(["b"]);
    expect(dek.kekNames(["payments"], false)).toEqual([]);
  });
});

describe("DEKs", () => {
  test("a non-shared KEK's DEK needs encryptedKeyMaterial (42271); versions and latest", async () => {
    await localKek("k");
    expect(await failure(() => dek.createDek("k", "s", {}, false))).toEqual({
      status: 422,
      code: 42271,
      message: "Invalid or missing value for field 'encryptedKeyMaterial' of key",
    });
    await dek.createDek("k", "s", { encryptedKeyMaterial: "QQ==" }, false);
    await dek.createDek("k", "s", { encryptedKeyMaterial: "Qg==", version: 2 }, false);
    await dek.createDek("k", "s", { encryptedKeyMaterial: "Qw==", version: 1, algorithm: "AES128_GCM" }, false);
    expect(dek.dekVersions("k", "s", undefined, false)).toEqual([1, 2]);
    expect(dek.getDek("k", "s", "latest", undefined, false).stored.value.encryptedKeyMaterial).toBe("Qg==");
    expect(dek.getDek("k", "s", 1, "AES128_GCM", false).stored.value.encryptedKeyMaterial).toBe("Qw==");
    expect(dek.getDek("k", "s", 1, undefined, false).keyMaterial).toBeUndefined();
    expect(await failure(() => dek.createDek("k", "s", { encryptedKeyMaterial: "QQ==" }, false))).toEqual({
      status: 409,
      code: 40971,
      message: "Key 's' already exists; use a different value",
    });
    expect(await failure(() => dek.createDek("nope", "s", { encryptedKeyMaterial: "QQ==" }, false))).toEqual({
      status: 404,
      code: 40470,
      message: "Key 'nope' not found",
    });
    expect(await failure(() => dek.createDek("k", "bad\u0001", { encryptedKeyMaterial: "QQ==" }, false))).toMatchObject(
      { code: 42271, message: "Invalid or missing value for field 'subject' of key" },
    );
  });

  test("a shared KEK: the registry makes the DEK, wraps it with the KEK, and answers its raw material", async () => {
    await localKek("shared", true);
    const created = await dek.createDek("shared", "s", { algorithm: "AES128_GCM" }, false);
    const raw = Buffer.from(created.keyMaterial!, "base64");
    expect(raw.subarray(0, 2)).toEqual(Buffer.from([0x1a, 16]));
    const unwrapped = localAead("s3cret").decrypt(Buffer.from(created.stored.value.encryptedKeyMaterial!, "base64"));
    expect(Buffer.from(unwrapped).equals(raw)).toBe(true);
    expect(dek.getDek("shared", "s", 1, "AES128_GCM", false).keyMaterial).toBe(created.keyMaterial);
    // Rewrapping keeps the DEK.
    const rewrapped = await dek.createDek("shared", "s", { algorithm: "AES128_GCM" }, true);
    expect(rewrapped.keyMaterial).toBe(created.keyMaterial);
    expect(rewrapped.stored.value.encryptedKeyMaterial).not.toBe(created.stored.value.encryptedKeyMaterial);
    expect(dek.testKek("shared").id.name).toBe("shared");
  });

  test("a shared KEK on a KMS this registry cannot reach: 50070, nothing written", async () => {
    await dek.createKek(
      { name: "cloud", kmsType: "gcp-kms", kmsKeyId: "projects/p/locations/l/keyRings/r/cryptoKeys/k", shared: true },
      false,
    );
    expect(await failure(() => dek.createDek("cloud", "s", {}, false))).toEqual({
      status: 500,
      code: 50070,
      message:
        "Could not generate encrypted dek for s: No KMS driver supports: gcp-kms://projects/p/locations/l/keyRings/r/cryptoKeys/k",
    });
    expect(dek.dekVersions("cloud", "s", undefined, true)).toEqual([]);
    expect(await failure(() => dek.testKek("cloud"))).toMatchObject({ code: 50070 });
    await localKek("plain");
    expect(await failure(() => dek.testKek("plain"))).toEqual({
      status: 422,
      code: 42271,
      message: "Invalid or missing value for field 'shared' of key",
    });
  });

  test("soft delete, deleted listings, undelete (40472 while the KEK is deleted), permanent delete", async () => {
    await localKek("k");
    await dek.createDek("k", "s", { encryptedKeyMaterial: "QQ==" }, false);
    await dek.createDek("k", "s", { encryptedKeyMaterial: "Qg==", version: 2 }, false);
    expect(await failure(() => dek.deleteDekVersion("k", "s", 2, undefined, true))).toEqual({
      status: 404,
      code: 40471,
      message: "Key 's' was not deleted first before being permanently deleted",
    });
    await dek.deleteDekVersion("k", "s", 2, undefined, false);
    expect(dek.dekVersions("k", "s", undefined, false)).toEqual([1]);
    expect(dek.dekVersions("k", "s", undefined, true)).toEqual([1, 2]);
    expect(await failure(() => dek.getDek("k", "s", 2, undefined, false))).toEqual({
      status: 404,
      code: 40470,
      message: "Key 's' not found",
    });
    expect(dek.getDek("k", "s", 2, undefined, true).stored.value.deleted).toBe(true);
    await dek.deleteDek("k", "s", undefined, false);
    expect(dek.dekSubjects("k", false)).toEqual([]);
    expect(dek.dekSubjects("k", true)).toEqual(["s"]);
    await dek.deleteKek("k", false);
    expect(await failure(() => dek.undeleteDek("k", "s", undefined))).toEqual({
      status: 404,
      code: 40472,
      message: "Key 'k' must be undeleted first",
    });
    await dek.undeleteKek("k");
    await dek.undeleteDekVersion("k", "s", 1, undefined);
    expect(dek.dekVersions("k", "s", undefined, false)).toEqual([1]);
    await dek.undeleteDek("k", "s", undefined);
    expect(dek.dekVersions("k", "s", undefined, false)).toEqual([1, 2]);
    await dek.deleteDek("k", "s", undefined, false);
    await dek.deleteDek("k", "s", undefined, true);
    expect(dek.dekVersions("k", "s", undefined, true)).toEqual([]);
    expect(await failure(() => dek.deleteDek("k", "s", undefined, false))).toMatchObject({
      code: 40470,
      message: "Key 's' not found",
    });
  });

  test("a restart reads the same keys back from the topic, with their timestamps", async () => {
    await localKek("k");
    const created = await dek.createDek("k", "s", { encryptedKeyMaterial: "QQ==" }, false);
    await log.stop();
    log = keysLog(broker.broker, {
      topic: "_dek_registry_keys",
      replicationFactor: 1,
      timeoutMs: 5000,
      initTimeoutMs: 5000,
    });
    await log.start();
    const again = new DekRegistry(log, { maxKeys: 3, env: {} }).getDek("k", "s", 1, undefined, false);
    expect(again.stored.ts).toBe(created.stored.ts);
    expect(again.stored.value).toEqual(created.stored.value);
  });
});
