// The _schemas record codec and the state it feeds: pure, no broker.
import { describe, expect, test } from "bun:test";
import { decoder, encoder } from "#src/broker/broker.ts";
import { decodeRecord, encodeKey, encodeValue, replayable, type RegistryRecord } from "#src/registry/store/records.ts";
import { RegistryState } from "#src/registry/store/state.ts";

const text = (b: Uint8Array | null) => (b === null ? null : decoder.decode(b));
const bytes = (o: object | null) => (o === null ? null : encoder.encode(JSON.stringify(o)));

describe("_schemas records", () => {
  test("keys in Confluent's field order", () => {
    expect(text(encodeKey({ keytype: "SCHEMA", subject: "s", version: 3, value: null }))).toBe(
      '{"keytype":"SCHEMA","subject":"s","version":3,"magic":1}',
    );
    expect(text(encodeKey({ keytype: "CONFIG", subject: null, value: null }))).toBe('{"keytype":"CONFIG","magic":0}');
    expect(text(encodeKey({ keytype: "CONFIG", subject: "s", value: null }))).toBe(
      '{"keytype":"CONFIG","subject":"s","magic":0}',
    );
    expect(text(encodeKey({ keytype: "MODE", subject: "s", value: null }))).toBe(
      '{"keytype":"MODE","subject":"s","magic":0}',
    );
    expect(text(encodeKey({ keytype: "NOOP" }))).toBe('{"keytype":"NOOP","magic":0}');
    expect(text(encodeKey({ keytype: "DELETE_SUBJECT", subject: "s", value: null }))).toBe(
      '{"keytype":"DELETE_SUBJECT","subject":"s","magic":0}',
    );
    const raw = encoder.encode('{"keytype":"CONFIG","subject":null,"magic":0}');
    expect(encodeKey({ keytype: "CONFIG", subject: null, value: null, rawKey: raw })).toBe(raw);
  });

  test("values: schemaType omitted for AVRO, references only when present", () => {
    const avro = encodeValue({
      keytype: "SCHEMA",
      subject: "s",
      version: 1,
      value: { subject: "s", version: 1, id: 7, schema: '"int"', deleted: false, references: [] },
    });
    expect(JSON.parse(text(avro)!)).toEqual({ subject: "s", version: 1, id: 7, schema: '"int"', deleted: false });
    const mode = encodeValue({ keytype: "MODE", subject: "s", value: { mode: "IMPORT" } });
    expect(JSON.parse(text(mode)!)).toEqual({ subject: "s", mode: "IMPORT" });
    expect(encodeValue({ keytype: "CONFIG", subject: null, value: null })).toBeNull();
  });

  test("decoding is tolerant: unknown keytypes and garbage are skipped", () => {
    expect(decodeRecord(bytes({ keytype: "CONTEXT", tenant: "t" }), bytes({}))).toBeUndefined();
    expect(decodeRecord(encoder.encode("not json"), null)).toBeUndefined();
    expect(decodeRecord(null, bytes({}))).toBeUndefined();
    expect(
      decodeRecord(bytes({ keytype: "SCHEMA", subject: "s", version: 1, magic: 1 }), bytes({ id: "x" })),
    ).toBeUndefined();
  });

  test("state applies schemas, soft deletes by watermark, tombstones, configs and modes", () => {
    const state = new RegistryState();
    const schema = (subject: string, version: number, id: number, deleted = false) =>
      state.apply(
        bytes({ keytype: "SCHEMA", subject, version, magic: 1 }),
        bytes({ subject, version, id, schema: '"string"', deleted }),
      );
    schema("a", 1, 1);
    schema("a", 2, 5);
    schema("b", 1, 1);
    expect(state.maxId).toBe(5);
    expect(state.holders(1).map((h) => h.subject)).toEqual(["a", "b"]);
    state.apply(bytes({ keytype: "DELETE_SUBJECT", subject: "a", magic: 0 }), bytes({ subject: "a", version: 1 }));
    expect(state.versions("a").map((v) => v.deleted)).toEqual([true, false]);
    state.apply(bytes({ keytype: "SCHEMA", subject: "a", version: 2, magic: 1 }), null);
    expect(state.versions("a").map((v) => v.version)).toEqual([1]);
    expect(state.holders(5)).toEqual([]);
    expect(state.maxId).toBe(5); // the allocator never goes back
    state.apply(bytes({ keytype: "CONFIG", magic: 0 }), bytes({ compatibilityLevel: "FULL" }));
    state.apply(bytes({ keytype: "MODE", subject: "b", magic: 0 }), bytes({ subject: "b", mode: "readonly" }));
    expect(state.configs.get(null)?.value.compatibilityLevel).toBe("FULL");
    expect(state.modes.get("b")?.value).toBe("READONLY");
    state.apply(bytes({ keytype: "CLEAR_SUBJECT", subject: "a", magic: 0 }), bytes({ subject: "a" }));
    expect(state.versions("a")).toEqual([]);
  });

  test("only records the reader applies as written, to the subject they name, are replayable", () => {
    const value = { subject: "s", version: 1, id: 3, schema: '"int"', deleted: false };
    expect(replayable({ keytype: "SCHEMA", subject: "s", version: 1, value })).toBe(true);
    expect(replayable({ keytype: "CONFIG", subject: null, value: { compatibilityLevel: "NONE" } })).toBe(true);
    expect(replayable({ keytype: "MODE", subject: "s", value: { mode: "READONLY" } })).toBe(true);
    expect(replayable({ keytype: "NOOP" })).toBe(true);
    // What an undecoded path parameter produced: skipped on replay, or read as the global setting.
    const missing = null as unknown as string;
    expect(replayable({ keytype: "SCHEMA", subject: missing, version: 1, value: { ...value, subject: missing } })).toBe(
      false,
    );
    expect(replayable({ keytype: "MODE", subject: undefined as unknown as string, value: { mode: "READONLY" } })).toBe(
      false,
    );
    expect(
      replayable({ keytype: "CONFIG", subject: undefined as unknown as string, value: { compatibilityLevel: "NONE" } }),
    ).toBe(false);
    expect(
      replayable({
        keytype: "SCHEMA",
        subject: "s",
        version: 1,
        value: { ...value, id: "3" },
      } as unknown as RegistryRecord),
    ).toBe(false);
  });

  test("an id in a schema record replay skips is never allocated again", () => {
    const state = new RegistryState();
    state.apply(
      bytes({ keytype: "SCHEMA", subject: "a", version: 1, magic: 1 }),
      bytes({ subject: "a", version: 1, id: 10, schema: '"int"', deleted: false }),
    );
    // As older Sluice wrote for POST /subjects/%FF/versions.
    expect(
      state.apply(
        bytes({ keytype: "SCHEMA", subject: null, version: 1, magic: 1 }),
        bytes({ subject: null, version: 1, id: 11, schema: '"long"', deleted: false }),
      ),
    ).toBe(false);
    expect(state.maxId).toBe(11);
    expect(state.holders(11)).toEqual([]);
    state.apply(bytes({ keytype: "CONFIG", magic: 0 }), bytes({ id: 99 }));
    state.apply(bytes({ keytype: "SCHEMA", subject: null, version: 2, magic: 1 }), bytes({ id: 1e300 }));
    expect(state.maxId).toBe(11);
  });
});
