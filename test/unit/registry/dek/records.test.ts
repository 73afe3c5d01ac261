// `_dek_registry_keys` records are the bytes Confluent's KafkaDekRegistry writes. The expected JSON is
// written out by hand from Confluent's storage classes (KeyEncryptionKeyId, DataEncryptionKeyId,
// KeyEncryptionKey, DataEncryptionKey: Jackson puts the @JsonCreator parameters first, in their order,
// then `type`; null fields are left out; keyMaterial, offset and ts are never written).
import { describe, expect, test } from "bun:test";
import { decoder, encoder } from "#src/broker/broker.ts";
import { decodeRecord, dekId, encodeKey, encodeValue, kekId, type DekRecord } from "#src/registry/dek/records.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : decoder.decode(bytes));

describe("Confluent's record layout", () => {
  test("a KEK: key {tenant,name,type}, value with kmsProps sorted, doc only when set", () => {
    const record: DekRecord = {
      ...kekId("payments"),
      value: {
        name: "payments",
        kmsType: "local-kms",
        kmsKeyId: "k1",
        kmsProps: { secret: "s", b: "2" },
        shared: true,
        deleted: false,
      },
    };
    expect(text(encodeKey(record))).toBe('{"tenant":"default","name":"payments","type":"KEK"}');
    expect(text(encodeValue(record))).toBe(
      '{"name":"payments","kmsType":"local-kms","kmsKeyId":"k1","kmsProps":{"b":"2","secret":"s"},"shared":true,"deleted":false,"type":"KEK"}',
    );
    const withDoc: DekRecord = {
      ...kekId("p"),
      value: {
        name: "p",
        kmsType: "aws-kms",
        kmsKeyId: "arn:aws:kms:x",
        kmsProps: {},
        doc: "d",
        shared: false,
        deleted: true,
      },
    };
    expect(text(encodeValue(withDoc))).toBe(
      '{"name":"p","kmsType":"aws-kms","kmsKeyId":"arn:aws:kms:x","kmsProps":{},"doc":"d","shared":false,"deleted":true,"type":"KEK"}',
    );
  });

  test("kmsProps in Java's TreeMap order, integer-like keys included (a JS object would put them first)", () => {
    const record: DekRecord = {
      ...kekId("k"),
      value: {
        name: "k",
        kmsType: "t",
        kmsKeyId: "i",
        kmsProps: { b: "x", "10": "y", "9": "z" },
        shared: false,
        deleted: false,
      },
    };
    expect(text(encodeValue(record))).toContain('"kmsProps":{"10":"y","9":"z","b":"x"}');
  });

  test("a DEK: key {tenant,kekName,subject,algorithm,version,type}, value without encryptedKeyMaterial when none", () => {
    const id = dekId("payments", "orders-value", "AES128_GCM", 2);
    const record: DekRecord = {
      ...id,
      value: {
        kekName: "payments",
        subject: "orders-value",
        algorithm: "AES128_GCM",
        version: 2,
        encryptedKeyMaterial: "AAA=",
        deleted: false,
      },
    };
    expect(text(encodeKey(record))).toBe(
      '{"tenant":"default","kekName":"payments","subject":"orders-value","algorithm":"AES128_GCM","version":2,"type":"DEK"}',
    );
    expect(text(encodeValue(record))).toBe(
      '{"kekName":"payments","subject":"orders-value","algorithm":"AES128_GCM","version":2,"encryptedKeyMaterial":"AAA=","deleted":false,"type":"DEK"}',
    );
    const bare: DekRecord = {
      ...dekId("k", "s", "AES256_SIV", 1),
      value: { kekName: "k", subject: "s", algorithm: "AES256_SIV", version: 1, deleted: true },
    };
    expect(text(encodeValue(bare))).toBe(
      '{"kekName":"k","subject":"s","algorithm":"AES256_SIV","version":1,"deleted":true,"type":"DEK"}',
    );
  });

  test("a permanent delete is a tombstone; a key read from the topic is written back as it was read", () => {
    const raw = encoder.encode('{"type":"KEK","tenant":"default","name":"k"}');
    const record: DekRecord = { ...kekId("k"), value: null, rawKey: raw };
    expect(encodeValue(record)).toBeNull();
    expect(encodeKey(record)).toBe(raw);
  });
});

describe("reading records", () => {
  test("what Confluent wrote reads back, including its offset/ts fields (ignored) and unknown fields", () => {
    const key = encoder.encode(
      '{"tenant":"default","kekName":"k","subject":"s","algorithm":"AES256_GCM","version":3,"type":"DEK"}',
    );
    const value = encoder.encode(
      '{"kekName":"k","subject":"s","algorithm":"AES256_GCM","version":3,"encryptedKeyMaterial":"QQ==","deleted":false,"type":"DEK","offset":7,"ts":1,"extra":1}',
    );
    expect(decodeRecord(key, value)).toEqual({
      ...dekId("k", "s", "AES256_GCM", 3),
      value: {
        kekName: "k",
        subject: "s",
        algorithm: "AES256_GCM",
        version: 3,
        encryptedKeyMaterial: "QQ==",
        deleted: false,
      },
    });
  });

  test("records it cannot understand are skipped, not misread", () => {
    expect(decodeRecord(null, null)).toBeUndefined();
    expect(decodeRecord(encoder.encode("not json"), null)).toBeUndefined();
    expect(decodeRecord(encoder.encode('{"tenant":"default","type":"OTHER"}'), null)).toBeUndefined();
    expect(
      decodeRecord(
        encoder.encode(
          '{"tenant":"default","kekName":"k","subject":"s","algorithm":"AES512","version":1,"type":"DEK"}',
        ),
        null,
      ),
    ).toBeUndefined();
  });

  test("every record written decodes to itself", () => {
    const records: DekRecord[] = [
      {
        ...kekId("a"),
        value: {
          name: "a",
          kmsType: "local-kms",
          kmsKeyId: "x",
          kmsProps: { p: "1" },
          doc: "d",
          shared: true,
          deleted: false,
        },
      },
      {
        ...dekId("a", "s", "AES256_GCM", 1),
        value: {
          kekName: "a",
          subject: "s",
          algorithm: "AES256_GCM",
          version: 1,
          encryptedKeyMaterial: "Zg==",
          deleted: true,
        },
      },
      { ...dekId("a", "s", "AES128_GCM", 4), value: null },
    ];
    for (const r of records) expect(decodeRecord(encodeKey(r), encodeValue(r))).toEqual(r);
  });
});
