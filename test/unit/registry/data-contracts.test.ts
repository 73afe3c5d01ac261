import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  contractJson,
  mergeMetadata,
  mergeRuleSets,
  readMetadata,
  readRuleSet,
  sameContractIgnoringVersion,
  schemaGuid,
  validateRuleSet,
  withConfluentVersion,
  type Metadata,
} from "#src/registry/data-contracts.ts";
import { RegistryError } from "#src/registry/errors.ts";

const md = (properties: Record<string, string>, extra: object = {}) => readMetadata({ properties, ...extra })!;
const rules = (...domainRules: object[]) => readRuleSet({ domainRules })!;
const failure = (f: () => unknown): [number, string] | undefined => {
  try {
    f();
  } catch (err) {
    if (err instanceof RegistryError) return [err.errorCode, err.message];
    throw err;
  }
  return undefined;
};

describe("reading and writing contracts as Confluent's entities do", () => {
  test("sorted maps and sets, a rule's defaults filled in, empty parts left out", () => {
    const metadata = readMetadata({ properties: { b: "2", a: 1 }, tags: { "R.f": ["Z", "A", "Z"] }, sensitive: [] });
    expect(contractJson({ metadata })).toEqual({
      metadata: { tags: { "R.f": ["A", "Z"] }, properties: { a: "1", b: "2" } },
    });
    expect(JSON.stringify(contractJson({ metadata }).metadata)).toBe(
      '{"tags":{"R.f":["A","Z"]},"properties":{"a":"1","b":"2"}}',
    );
    const ruleSet = readRuleSet({
      domainRules: [{ type: "CEL", name: "r", params: { z: "1", a: "2" }, mode: "write" }],
      migrationRules: null,
    });
    expect(JSON.stringify(contractJson({ ruleSet }).ruleSet)).toBe(
      '{"domainRules":[{"name":"r","kind":"TRANSFORM","mode":"WRITE","type":"CEL","params":{"a":"2","z":"1"},"disabled":false}]}',
    );
    expect(readMetadata(null)).toBeUndefined();
    expect(contractJson({ metadata: readMetadata({}) })).toEqual({ metadata: {} });
  });

  test("wrong shapes are 400 naming the field", () => {
    expect(failure(() => readMetadata({ properties: { a: { b: 1 } } }))).toEqual([
      400,
      "Invalid request body at metadata.properties.a: expected a string",
    ]);
    expect(failure(() => readRuleSet({ domainRules: [{ name: "r", kind: "MAYBE" }] }))).toEqual([
      400,
      "Invalid request body at ruleSet.domainRules[0].kind: expected one of TRANSFORM, CONDITION",
    ]);
    expect(failure(() => readRuleSet([]))).toEqual([400, "Invalid request body at ruleSet: expected an object"]);
  });
});

describe("merging (default ← specific ← override)", () => {
  test("metadata: maps merged key by key, sets united, an absent side gives the other", () => {
    const merged = mergeMetadata(md({ a: "1", b: "1" }, { sensitive: ["x"] }), md({ b: "2" }, { sensitive: ["y"] }))!;
    expect(merged.properties).toEqual({ a: "1", b: "2" });
    expect(merged.sensitive).toEqual(["x", "y"]);
    expect(mergeMetadata(undefined, md({ a: "1" }))).toEqual(md({ a: "1" }));
    expect(mergeMetadata(md({ a: "1" }), undefined)).toEqual(md({ a: "1" }));
  });

  test("rule sets: a newer rule replaces the older one of its name, after the others", () => {
    const merged = mergeRuleSets(
      rules({ name: "a", type: "CEL", expr: "1" }, { name: "b", type: "CEL" }),
      rules({ name: "a", type: "CEL", expr: "2" }),
    )!;
    expect(merged.domainRules.map((r) => [r.name, r.expr])).toEqual([
      ["b", undefined],
      ["a", "2"],
    ]);
  });

  test("confluent:version is set aside when a candidate is compared with a stored version", () => {
    const stored = { metadata: withConfluentVersion(md({ owner: "x" }), 3) };
    expect(sameContractIgnoringVersion({ metadata: md({ owner: "x" }) }, stored, 3)).toBe(true);
    expect(sameContractIgnoringVersion({ metadata: md({ owner: "y" }) }, stored, 3)).toBe(false);
    // Without metadata, a stored one holding only confluent:version matches.
    expect(sameContractIgnoringVersion({}, { metadata: withConfluentVersion(undefined, 1) }, 1)).toBe(true);
    // A candidate's confluent:version must name the stored version.
    expect(sameContractIgnoringVersion({ metadata: withConfluentVersion(undefined, 2) }, {}, 2)).toBe(true);
    expect(sameContractIgnoringVersion({ metadata: withConfluentVersion(undefined, 2) }, {}, 1)).toBe(false);
  });
});

describe("rule set validation (42210, Confluent's messages)", () => {
  const invalid = (...domainRules: object[]) => failure(() => validateRuleSet(rules(...domainRules)));
  test("names, types, modes and actions", () => {
    expect(invalid({ name: "ok_rule-1", type: "CEL" })).toBeUndefined();
    expect(invalid({ name: "é", type: "CEL" })).toBeUndefined();
    expect(invalid({ name: "", type: "CEL" })).toEqual([42210, "Empty rule name"]);
    expect(invalid({ name: "x".repeat(257), type: "CEL" })).toEqual([42210, "Rule name too long"]);
    expect(invalid({ name: "a b", type: "CEL" })).toEqual([42210, "Illegal character in rule name: a b"]);
    expect(invalid({ name: "a", type: "CEL", mode: "READ", onSuccess: "NONE,ERROR" })).toEqual([
      42210,
      "Multiple actions only valid with WRITEREAD and UPDOWN",
    ]);
    expect(invalid({ name: "a", type: "CEL", mode: "WRITEREAD", onSuccess: "NONE,ERROR" })).toBeUndefined();
    expect(
      failure(() => validateRuleSet(readRuleSet({ encodingRules: [{ name: "e", type: "ENCRYPT", mode: "UPDOWN" }] }))),
    ).toEqual([42210, "Encoding rules can only be WRITE, READ, WRITEREAD"]);
    // Names are unique across the three lists.
    expect(
      failure(() =>
        validateRuleSet(
          readRuleSet({
            migrationRules: [{ name: "a", type: "J", mode: "UPGRADE" }],
            domainRules: [{ name: "a", type: "CEL" }],
          }),
        ),
      ),
    ).toEqual([42210, "Found rule with duplicate name 'a'"]);
  });
});

describe("schema GUIDs (Confluent's MD5 of schema, references, metadata and rules, as a UUID)", () => {
  const uuid = (hex: string) =>
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  test("a schema alone hashes its UTF-8 text", () => {
    expect(schemaGuid('"string"', [], {})).toBe(uuid(createHash("md5").update('"string"').digest("hex")));
  });

  test("references (name, subject, a 4-byte version), then a marker byte and each contract part", () => {
    const version = Buffer.alloc(4);
    version.writeInt32BE(7);
    const refs = createHash("md5").update("s").update("Addr").update("addr-value").update(version).digest("hex");
    expect(schemaGuid("s", [{ name: "Addr", subject: "addr-value", version: 7 }], {})).toBe(uuid(refs));
    const metadata: Metadata = md({ b: "2", a: "1" }, { tags: { t: ["PII"] }, sensitive: ["s"] });
    const expected = createHash("md5")
      .update("s")
      .update(Uint8Array.of(1))
      .update("t")
      .update("PII")
      .update("a")
      .update("1")
      .update("b")
      .update("2")
      .update("s")
      .digest("hex");
    expect(schemaGuid("s", [], { metadata })).toBe(uuid(expected));
    const ruleSet = rules({ name: "r", type: "CEL", expr: "e", disabled: true });
    const withRules = createHash("md5")
      .update("s")
      .update(Uint8Array.of(1))
      .update("r")
      .update("TRANSFORM")
      .update("WRITEREAD")
      .update("CEL")
      .update("e")
      .update(Uint8Array.of(1))
      .digest("hex");
    expect(schemaGuid("s", [], { ruleSet })).toBe(uuid(withRules));
    // Empty metadata still differs from none.
    expect(schemaGuid("s", [], { metadata: readMetadata({}) })).not.toBe(schemaGuid("s", [], {}));
  });
});
