import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { DataException, Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import { ConditionFilter, JsonPath } from "#src/connect/transforms/index.ts";
import { regexThreads } from "#src/jvm/regex-budget.ts";
import { configured, source } from "./helpers.ts";

const filter = (condition: string, type = "include", missing?: string, side: "key" | "value" = "value") =>
  configured(new ConditionFilter(side), {
    "filter.condition": condition,
    "filter.type": type,
    ...(missing === undefined ? {} : { "missing.or.null.behavior": missing }),
  });

const keeps = async (f: ConditionFilter, value: unknown) => (await f.apply(source({ value }))) !== null;

describe("ConditionFilter (Filter$Value)", () => {
  test("the spec's example: $[?(@.status == 'ACTIVE')] keeps active records", async () => {
    const f = filter("$[?(@.status == 'ACTIVE')]");
    expect(await keeps(f, { status: "ACTIVE" })).toBe(true);
    expect(await keeps(f, { status: "INACTIVE" })).toBe(false);
    // A missing field inside a filter is undefined, not "missing": the record just does not match.
    expect(await keeps(f, { other: 1 })).toBe(false);
    const ex = filter("$[?(@.status == 'ACTIVE')]", "exclude");
    expect(await keeps(ex, { status: "ACTIVE" })).toBe(false);
    expect(await keeps(ex, { status: "INACTIVE" })).toBe(true);
  });

  test("a plain path matches when the field is present; missing or null follows missing.or.null.behavior", async () => {
    expect(await keeps(filter("$.amount"), { amount: 0 })).toBe(true);
    expect(() => filter("$.amount").apply(source({ value: { other: 1 } }))).toThrow(DataException);
    expect(await keeps(filter("$.amount", "include", "include"), { amount: null })).toBe(true);
    expect(await keeps(filter("$.amount", "include", "exclude"), {})).toBe(false);
    expect(await keeps(filter("$.amount", "exclude", "include"), null)).toBe(true);
    expect(await keeps(filter("$.a.b", "include", "exclude"), { a: null })).toBe(false);
  });

  test("Confluent's documented example on a nested key, on Structs", () => {
    const inner = SchemaBuilder.struct().field("nestedKey", Schema.STRING_SCHEMA).build();
    const schema = SchemaBuilder.struct().field("key", inner).build();
    const f = filter('$.key[?(@.nestedKey == "value1" || @.nestedKey == "value2")]');
    const rec = (v: string) =>
      source({ valueSchema: schema, value: new Struct(schema).put("key", new Struct(inner).put("nestedKey", v)) });
    expect(f.apply(rec("value2"))).not.toBeNull();
    expect(f.apply(rec("value3"))).toBeNull();
  });

  test("comparisons, regex, logic, arrays, key variant", async () => {
    const v = { amount: 150, name: "Widget", tags: ["a", "b"], items: [{ qty: 1 }, { qty: 7 }], flag: true };
    const m = (cond: string) => keeps(filter(cond), v);
    expect(await m("$[?(@.amount > 100 && @.amount <= 150)]")).toBe(true);
    expect(await m("$[?(@.amount < 100 || @.name != 'Widget')]")).toBe(false);
    // =~ answers come from a regex thread.
    expect(await m("$[?(@.name =~ /wid.*/i)]")).toBe(true);
    expect(await m("$[?(@.name =~ /wid/i)]")).toBe(false);
    expect(await m("$[?(!(@.amount >= 200))]")).toBe(true);
    expect(await m("$[?(@.flag == true)]")).toBe(true);
    expect(await m("$[?(@.missing)]")).toBe(false);
    expect(await m("$[?(@.name)]")).toBe(true);
    expect(await m("$[?(@.name in ['Gadget', 'Widget'])]")).toBe(true);
    expect(await m("$[?(@.name nin ['Gadget', 'Widget'])]")).toBe(false);
    expect(await m("$.items[?(@.qty > 5)]")).toBe(true);
    expect(await m("$.items[?(@.qty > 50)]")).toBe(false);
    expect(await m("$.items[1].qty")).toBe(true);
    expect(await m("$.tags[*]")).toBe(true);
    expect(await m("$['name']")).toBe(true);
    expect(await m("$..qty")).toBe(true);
    expect(await m("$[?(@.amount == '150')]")).toBe(false);
    expect(
      configured(new ConditionFilter("key"), { "filter.condition": "$.id", "filter.type": "exclude" }).apply(
        source({ key: { id: 1 }, value: null }),
      ),
    ).toBeNull();
  });

  test("a =~ over regex.match.timeout.ms fails the record with a RegexTimeoutException", async () => {
    const budget = regexThreads.timeoutMs;
    regexThreads.timeoutMs = 100;
    try {
      const f = filter("$[?(@.name =~ /(a+)+/)]");
      await expect(keeps(f, { name: `${"a".repeat(60)}-` })).rejects.toThrow(
        "filter.condition regex '(a+)+' did not finish matching",
      );
      expect(await keeps(f, { name: "aaa" })).toBe(true);
    } finally {
      regexThreads.timeoutMs = budget;
    }
  });

  test("int64 and decimal values compare as numbers", () => {
    const schema = SchemaBuilder.struct().field("n", Schema.INT64_SCHEMA).build();
    expect(
      filter("$[?(@.n >= 10)]").apply(source({ valueSchema: schema, value: new Struct(schema).put("n", 10n) })),
    ).not.toBeNull();
  });

  test("settings validation", () => {
    expect(() => new ConditionFilter().configure({ "filter.type": "include" })).toThrow(ConfigError);
    expect(() => new ConditionFilter().configure({ "filter.condition": "$.a" })).toThrow(ConfigError);
    expect(() => new ConditionFilter().configure({ "filter.condition": "$.a", "filter.type": "maybe" })).toThrow(
      ConfigError,
    );
    expect(() =>
      new ConditionFilter().configure({ "filter.condition": "$[?(@.a == )]", "filter.type": "include" }),
    ).toThrow(/Invalid JSON Path expression/);
    expect(() => new ConditionFilter().configure({ "filter.condition": "a.b", "filter.type": "include" })).toThrow(
      /must start with/,
    );
    expect(() => JsonPath.compile("$.a[")).toThrow();
  });
});
