// DekState applies records in offset order as Confluent's cache does: latest value per key,
// tombstones remove, `ts` is the record's timestamp, lists in Confluent's id order.
import { expect, test } from "bun:test";
import { dekId, encodeKey, encodeValue, kekId, type DekAlgorithm, type DekRecord } from "#src/registry/dek/records.ts";
import { DekState } from "#src/registry/dek/state.ts";

let offset = 0;
const apply = (state: DekState, record: DekRecord, timestamp = 1000 + offset) =>
  state.apply(encodeKey(record), encodeValue(record), { offset: offset++, timestamp });
const kek = (name: string, deleted = false): DekRecord => ({
  ...kekId(name),
  value: { name, kmsType: "local-kms", kmsKeyId: "k", kmsProps: {}, shared: false, deleted },
});
const dek = (kekName: string, subject: string, version: number, algorithm: DekAlgorithm = "AES256_GCM"): DekRecord => ({
  ...dekId(kekName, subject, algorithm, version),
  value: { kekName, subject, algorithm, version, encryptedKeyMaterial: "QQ==", deleted: false },
});

test("latest value wins, with its record's offset and timestamp; a tombstone removes the key", () => {
  const state = new DekState();
  apply(state, kek("b"), 5);
  apply(state, kek("b", true), 9);
  expect(state.kek("b")?.value.deleted).toBe(true);
  expect(state.kek("b")?.ts).toBe(9);
  apply(state, { ...kekId("b"), value: null });
  expect(state.kek("b")).toBeUndefined();
  expect(state.count("KEK")).toBe(0);
});

test("KEKs by name, DEKs by KEK, subject, algorithm (enum order) and version (numerically)", () => {
  const state = new DekState();
  for (const name of ["zeta", "Alpha", "beta"]) apply(state, kek(name));
  expect(state.allKeks().map((k) => k.id.name)).toEqual(["Alpha", "beta", "zeta"]);
  apply(state, dek("beta", "s", 10));
  apply(state, dek("beta", "s", 2));
  apply(state, dek("beta", "s", 1, "AES256_SIV"));
  apply(state, dek("beta", "s", 3, "AES128_GCM"));
  apply(state, dek("alpha", "t", 1));
  expect(state.allDeks("beta").map((d) => `${d.id.algorithm}/${d.id.version}`)).toEqual([
    "AES128_GCM/3",
    "AES256_GCM/2",
    "AES256_GCM/10",
    "AES256_SIV/1",
  ]);
  expect(state.dekVersions("beta", "s", "AES256_GCM").map((d) => d.id.version)).toEqual([2, 10]);
  expect(state.allDeks().map((d) => d.id.kekName)).toEqual(["alpha", "beta", "beta", "beta", "beta"]);
  apply(state, { ...dekId("beta", "s", "AES256_GCM", 10), value: null });
  expect(state.dekVersions("beta", "s", "AES256_GCM").map((d) => d.id.version)).toEqual([2]);
  expect(state.count("DEK")).toBe(4);
});

test("other tenants' keys (a multi-tenant Confluent topic) are kept out of this registry's answers", () => {
  const state = new DekState();
  apply(state, {
    ...kekId("k", "lsrc-1"),
    value: { name: "k", kmsType: "t", kmsKeyId: "i", kmsProps: {}, shared: false, deleted: false },
  });
  expect(state.kek("k")).toBeUndefined();
  expect(state.allKeks()).toEqual([]);
});
