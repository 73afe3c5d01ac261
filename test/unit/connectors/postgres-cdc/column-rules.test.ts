import { describe, expect, test } from "bun:test";
import {
  applyRule,
  hashString,
  javaSerializedString,
  messageKeyColumns,
  parseColumnRules,
  parseMessageKeyColumns,
  ruleFor,
  type SourceColumn,
} from "#src/connectors/postgres-cdc/column-rules.ts";
import { ConfigError } from "#src/platform/settings.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const salt = (s: string) => new TextEncoder().encode(s);
const table = { schema: "public", table: "people" };
const text = (over: Partial<SourceColumn> = {}): SourceColumn => ({
  name: "c",
  typeName: "text",
  length: 2147483647,
  scale: null,
  isCharacter: true,
  ...over,
});

describe("Debezium's salted hashes", () => {
  // Computed by the JDK 17 itself, as Debezium's MaskStrings does: MessageDigest.update(salt.getBytes()),
  // then digest() of ObjectOutputStream.writeObject(value)'s bytes (v1) or of value.getBytes() (v2), as hex.
  const VECTORS: [string, string, string, string, string][] = [
    [
      "sha256",
      "CzQMA0cB5K",
      "Ada Lovelace",
      "a46592b9777a1f77e06e383e88e9024cfbe560b01a1664612e03e4f4512ae251",
      "15a6eaa394c9edd186dd7a9bd43baec9e8b4ca33705163ef71f18f8c8896429d",
    ],
    ["md5", "s@lt", "AL  ", "3c3f6dfe3aa6f42dc773595797556141", "b623aab4b7bce66aa5a2d6402d1184f5"],
    [
      "sha512",
      "pepper",
      "müller@exämple.de",
      "a73c6082c8bbc3f0a5a4a16c2d007341ea5ba62e4baf8a0173ef4aec1e471b2c788b03e51d608848b54c17b1dfe51fe23049cba3f3c79871375ee5c12df85b7b",
      "a81d7c2d8300e0c4774a3af732a16a4e22a4a48d69f5c7b65cbec0518025358b48152c279fe39cc74ee1bb9dbcfb30723a209e84854a2ff36c466f718d6003cf",
    ],
    ["sha1", "", "Zoë ☃ 𝄞", "8ffd928add3318036c47b39e81a951d07642cb69", "6169f96953c8e9a9a77d63a331bd1688a37b6bc6"],
    [
      "sha3-256",
      "salt.with.dots",
      "x",
      "e64b16138ec63207e76b9862811e25112bb59689a1881bb863c9c75ecf903d53",
      "a7acbd62b997e5500a017e16ab56458b7f0d09cbdd54a887ea6fa5a63852af1c",
    ],
    [
      "sha512-256",
      "s",
      "",
      "724f6fcdb47afa9cbaaea38a5485f9b7ccb3dfc53aeba54ed91d9a6ec1b9378e",
      "ed6f35fcd7bc4122ce07a56971e3c9cd4c868d4bf3faf725159329a8df242eb5",
    ],
  ];
  for (const [algorithm, s, value, v1, v2] of VECTORS)
    test(`${algorithm} of ${JSON.stringify(value)} salted ${JSON.stringify(s)}`, () => {
      expect(hashString({ algorithm, salt: salt(s), version: 1 }, value)).toBe(v1);
      expect(hashString({ algorithm, salt: salt(s), version: 2 }, value)).toBe(v2);
    });

  test("v1 serializes as Java does: stream header, TC_STRING and modified UTF-8 (surrogates apart)", () => {
    expect(hex(javaSerializedString("Ada Lovelace"))).toBe("aced000574000c416461204c6f76656c616365");
    expect(hex(javaSerializedString("Zoë ☃ 𝄞"))).toBe("aced000574000f5a6fc3ab20e2988320eda0b4edb49e");
    expect(hex(javaSerializedString("a\u0000"))).toBe("aced00057400036" + "1c080");
  });

  test("v1 serializes a string over 65535 bytes as TC_LONGSTRING with a 64-bit length", () => {
    const long = "Ω".repeat(33_000);
    expect(hex(javaSerializedString(long).slice(0, 15))).toBe("aced00057c00000000000101d0cea9");
    expect(hashString({ algorithm: "sha256", salt: salt("k"), version: 1 }, long)).toBe(
      "b9c6e17c511ef843e537250dbcd1a712a728333b11d9601f1dbd83c4014b01e5",
    );
  });
});

describe("column rules", () => {
  test("each family is read from its setting's name; the first rule a column matches applies", () => {
    const rules = parseColumnRules({
      "column.mask.hash.v2.SHA-512.with.salt.a.b.c": "public.people.hashed2",
      "column.mask.hash.sha256.with.salt.pepper": "public\\.people\\.(hashed|both)",
      "column.mask.with.3.chars": "public.people.masked, public.people.both",
      "column.truncate.to.4.chars": "public.people.short",
      "column.propagate.source.type": "public.people.typed",
      "datatype.propagate.source.type": ".+\\.int4",
    });
    expect(ruleFor(rules, table, "short", "text")).toEqual({ kind: "truncate", length: 4 });
    expect(ruleFor(rules, table, "MASKED", "text")).toEqual({ kind: "mask", mask: "***" });
    // The mask (before the hash in Debezium's order) wins.
    expect(ruleFor(rules, table, "both", "text")).toEqual({ kind: "mask", mask: "***" });
    expect(ruleFor(rules, table, "hashed", "text")).toMatchObject({ kind: "hash", algorithm: "sha256", version: 1 });
    expect(ruleFor(rules, table, "hashed2", "text")).toEqual({
      kind: "hash",
      algorithm: "sha512",
      salt: salt("a.b.c"),
      version: 2,
    });
    expect(ruleFor(rules, table, "typed", "text")).toEqual({ kind: "propagate" });
    expect(ruleFor(rules, table, "anything", "int4")).toEqual({ kind: "propagate" });
    expect(ruleFor(rules, table, "anything", "int8")).toBeNull();
    expect(ruleFor(rules, { schema: "other", table: "people" }, "masked", "text")).toBeNull();
  });

  test("an algorithm the JDK has no MessageDigest for is refused", () => {
    expect(() => parseColumnRules({ "column.mask.hash.ROT13.with.salt.x": "a.b.c" })).toThrow(ConfigError);
  });

  test("masking replaces a character column's value, null included; other types keep theirs, marked masked", () => {
    const masked = applyRule({ kind: "mask", mask: "*****" }, text());
    expect(masked.parameters).toEqual(new Map([["masked", "true"]]));
    expect([masked.mapValue!("secret"), masked.mapValue!(null)]).toEqual(["*****", "*****"]);
    const uuid = applyRule({ kind: "mask", mask: "*****" }, text({ typeName: "uuid", isCharacter: false }));
    expect(uuid).toEqual({ parameters: new Map([["masked", "true"]]) });
  });

  test("hashing keeps null and cuts the hex to the column's length", () => {
    const rule = { kind: "hash", algorithm: "md5", salt: salt("s@lt"), version: 1 } as const;
    const char4 = applyRule(rule, text({ typeName: "bpchar", length: 4 }));
    expect([char4.mapValue!("AL  "), char4.mapValue!(null)]).toEqual(["3c3f", null]);
    expect(applyRule(rule, text()).mapValue!("AL  ")).toBe("3c3f6dfe3aa6f42dc773595797556141");
  });

  test("truncation cuts strings (UTF-16 units) and bytes, only where the column may be longer", () => {
    const cut = applyRule({ kind: "truncate", length: 3 }, text());
    expect(cut.parameters).toEqual(new Map([["truncateLength", "3"]]));
    expect([cut.mapValue!("abcdef"), cut.mapValue!("ab"), cut.mapValue!(null)]).toEqual(["abc", "ab", null]);
    expect(cut.mapValue!(Uint8Array.of(1, 2, 3, 4))).toEqual(Uint8Array.of(1, 2, 3));
    expect(applyRule({ kind: "truncate", length: 3 }, text({ length: 3 }))).toEqual({ parameters: new Map() });
  });

  test("the source type's parameters: type upper-cased, length and scale when known, the column's name", () => {
    const numeric = applyRule(
      { kind: "propagate" },
      text({ name: "amount", typeName: "numeric", length: 10, scale: 2, isCharacter: false }),
    );
    expect([...numeric.parameters]).toEqual([
      ["__debezium.source.column.type", "NUMERIC"],
      ["__debezium.source.column.length", "10"],
      ["__debezium.source.column.scale", "2"],
      ["__debezium.source.column.name", "amount"],
    ]);
    const unknown = applyRule({ kind: "propagate" }, text({ name: "t", length: -1 }));
    expect([...unknown.parameters.keys()]).toEqual(["__debezium.source.column.type", "__debezium.source.column.name"]);
  });
});

describe("message.key.columns", () => {
  test("entries name a table (a regular expression) and its key columns, entry by entry", () => {
    const rules = { entries: [], keyColumns: parseMessageKeyColumns("public.people:code, id; .*\\.orders:a") };
    expect(messageKeyColumns(rules, table, ["id", "name", "code"])).toEqual(["code", "id"]);
    expect(messageKeyColumns(rules, { schema: "s", table: "orders" }, ["b", "a"])).toEqual(["a"]);
    expect(messageKeyColumns(rules, { schema: "s", table: "other" }, ["a"])).toBeNull();
  });

  test("an entry without a table or without columns is refused", () => {
    for (const bad of ["public.people", "public.people:", ":id", "a:b:c"])
      expect(() => parseMessageKeyColumns(bad), bad).toThrow(ConfigError);
  });
});
