import { describe, expect, test } from "bun:test";
import { ConfigError, SettingsDefinition } from "#src/platform/settings.ts";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";
import type { ConnectRecord } from "#src/connect/api/records.ts";
import { newRecord } from "#src/connect/api/records.ts";
import type { Transformation } from "#src/connect/api/transformation.ts";
import {
  BUILTIN_PREDICATES,
  BUILTIN_TRANSFORMS,
  ExtractNewRecordState,
  HasHeaderKey,
  InsertField,
  RecordIsTombstone,
  RegexRouter,
  TopicNameMatches,
  TransformChain,
  validateTransforms,
} from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

describe("registry", () => {
  test("Kafka, spec placeholder, Confluent, Debezium and short names", () => {
    const names = [
      "org.apache.kafka.connect.transforms.InsertField$Value",
      "org.apache.kafka.connect.transforms.InsertField$Key",
      "org.apache.kafka.connect.transforms.MaskField$Value",
      "org.apache.kafka.connect.transforms.ReplaceField$Value",
      "org.apache.kafka.connect.transforms.RegexRouter",
      "org.apache.kafka.connect.transforms.ValueToKey",
      "org.apache.kafka.connect.transforms.ExtractField$Key",
      "org.apache.kafka.connect.transforms.HoistField$Value",
      "org.apache.kafka.connect.transforms.Cast$Value",
      "org.apache.kafka.connect.transforms.Flatten$Value",
      "org.apache.kafka.connect.transforms.TimestampRouter",
      "org.apache.kafka.connect.transforms.TimestampConverter$Value",
      "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value",
      "org.apache.kafka.connect.transforms.InsertHeader",
      "org.apache.kafka.connect.transforms.DropHeaders",
      "org.apache.kafka.connect.transforms.HeaderFrom$Value",
      "org.apache.kafka.connect.transforms.Filter",
      "org.vendor.connect.transforms.InsertField$Value",
      "org.vendor.connect.transforms.MaskField$Value",
      "org.vendor.connect.transforms.ReplaceField$Value",
      "org.vendor.connect.transforms.RegexRouter",
      "io.vendor.connect.transforms.Filter$Value",
      "io.confluent.connect.transforms.Filter$Value",
      "io.cdc.transforms.ExtractNewRecordState",
      "io.debezium.transforms.ExtractNewRecordState",
      "InsertField$Value",
      "RegexRouter",
      "Filter$Value",
    ];
    for (const name of names) expect(BUILTIN_TRANSFORMS[name]).toBeFunction();
    expect(BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.InsertField$Key"]()).toMatchObject({ side: "key" });
    expect(BUILTIN_TRANSFORMS["io.cdc.transforms.ExtractNewRecordState"]()).toBeInstanceOf(ExtractNewRecordState);
    expect(BUILTIN_PREDICATES["org.apache.kafka.connect.transforms.predicates.TopicNameMatches"]()).toBeInstanceOf(
      TopicNameMatches,
    );
    expect(BUILTIN_PREDICATES["org.apache.kafka.connect.transforms.predicates.HasHeaderKey"]()).toBeInstanceOf(
      HasHeaderKey,
    );
    expect(BUILTIN_PREDICATES["org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"]()).toBeInstanceOf(
      RecordIsTombstone,
    );
    // Every built-in declares its settings.
    for (const factory of Object.values(BUILTIN_TRANSFORMS))
      expect(factory().config()).toBeInstanceOf(SettingsDefinition);
  });
});

describe("predicates", () => {
  test("TopicNameMatches is a full match", async () => {
    const p = configured(new TopicNameMatches(), { pattern: "orders.*" });
    expect(await p.test(source({ topic: "orders-1" }))).toBe(true);
    expect(await p.test(source({ topic: "my-orders" }))).toBe(false);
    expect(() => new TopicNameMatches().configure({ pattern: "" })).toThrow("String must be non-empty");
    expect(() => new TopicNameMatches().configure({ pattern: "(" })).toThrow(/Invalid regex/);
  });

  test("HasHeaderKey and RecordIsTombstone", () => {
    const p = configured(new HasHeaderKey(), { name: "h" });
    expect(p.test(source({ headers: [{ key: "h", schema: null, value: null }] }))).toBe(true);
    expect(p.test(source())).toBe(false);
    expect(() => new HasHeaderKey().configure({ name: "" })).toThrow("String must be non-empty");
    expect(new RecordIsTombstone().test(source({ value: null }))).toBe(true);
    expect(new RecordIsTombstone().test(source({ value: 1 }))).toBe(false);
  });
});

const PIPELINE = {
  name: "cdc",
  "connector.class": "x",
  transforms: "unwrap,route,tag",
  "transforms.unwrap.type": "io.cdc.transforms.ExtractNewRecordState",
  "transforms.unwrap.drop.tombstones": "false",
  "transforms.route.type": "org.vendor.connect.transforms.RegexRouter",
  "transforms.route.regex": "([^.]+)\\.([^.]+)\\.([^.]+)",
  "transforms.route.replacement": "$3",
  "transforms.tag.type": "org.vendor.connect.transforms.InsertField$Value",
  "transforms.tag.static.field": "origin",
  "transforms.tag.static.value": "sluice",
  "transforms.tag.topic.field": "table",
};

describe("TransformChain", () => {
  test("applies transforms in order (route before tag sees the routed topic)", async () => {
    const row = SchemaBuilder.struct()
      .name("server.public.orders.Value")
      .optional()
      .field("id", Schema.INT32_SCHEMA)
      .build();
    const envelope = SchemaBuilder.struct()
      .name("server.public.orders.Envelope")
      .field("before", row)
      .field("after", row)
      .field("op", Schema.STRING_SCHEMA)
      .build();
    const chain = TransformChain.fromConfig(PIPELINE);
    expect(chain.stages.map((s) => s.alias)).toEqual(["unwrap", "route", "tag"]);
    const out = (await chain.apply(
      source({
        topic: "server.public.orders",
        valueSchema: envelope,
        value: new Struct(envelope).put("after", new Struct(row).put("id", 7)).put("op", "c"),
      }),
    ))!;
    expect(out.topic).toBe("orders");
    const v = out.value as Struct;
    expect([v.get("id"), v.get("table"), v.get("origin")]).toEqual([7, "orders", "sluice"]);
    // A tombstone passes unwrap (drop.tombstones=false), is routed, and InsertField leaves the null value.
    const tomb = (await chain.apply(source({ topic: "server.public.orders", value: null })))!;
    expect([tomb.topic, tomb.value]).toEqual(["orders", null]);
  });

  test("a dropped record stops the chain", async () => {
    let calls = 0;
    const counting: Transformation = {
      configure() {},
      config: () => new SettingsDefinition([]),
      apply(r) {
        calls++;
        return r;
      },
    };
    const chain = TransformChain.fromConfig(
      {
        transforms: "drop,count",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
        "transforms.count.type": "com.example.Count",
      },
      { lookup: (name) => (name === "com.example.Count" ? () => counting : undefined) },
    );
    expect(await chain.apply(source({ value: 1 }))).toBeNull();
    expect(calls).toBe(0);
  });

  test("synchronous stages answer synchronously; an asynchronous stage or predicate mid-chain hands on to the rest", async () => {
    const tagging = (tag: string, later: boolean): Transformation => ({
      configure() {},
      config: () => new SettingsDefinition([]),
      apply: (r) => {
        const out = newRecord(r, { value: `${String(r.value)}${tag}` });
        return later ? Promise.resolve(out) : out;
      },
    });
    const plugins: Record<string, Transformation> = {
      "com.example.A": tagging("a", false),
      "com.example.B": tagging("b", true),
      "com.example.C": tagging("c", false),
    };
    const lookup = (name: string) => (plugins[name] ? () => plugins[name]! : undefined);
    const chainOf = (aliases: string[], extra: Record<string, string> = {}) =>
      TransformChain.fromConfig(
        {
          transforms: aliases.join(","),
          ...Object.fromEntries(aliases.map((a) => [`transforms.${a}.type`, `com.example.${a.toUpperCase()}`])),
          ...extra,
        },
        { lookup },
      );
    const now = chainOf(["a", "c"]).apply(source({ value: "" }));
    expect(now).not.toBeInstanceOf(Promise);
    expect((now as ConnectRecord).value).toBe("ac");
    const later = chainOf(["a", "b", "c"]).apply(source({ value: "" }));
    expect(later).toBeInstanceOf(Promise);
    expect((await later)!.value).toBe("abc");
    // A predicate that answers later: the stage it gates still runs (or not), then the rest.
    const slowPredicate = {
      predicates: "slow",
      "predicates.slow.type": "com.example.Slow",
      "transforms.c.predicate": "slow",
    };
    for (const matches of [true, false]) {
      const chain = TransformChain.fromConfig(
        {
          transforms: "a,c",
          "transforms.a.type": "com.example.A",
          "transforms.c.type": "com.example.C",
          ...slowPredicate,
        },
        {
          lookup,
          predicateLookup: (name: string) =>
            name === "com.example.Slow"
              ? () => ({ configure() {}, config: () => new SettingsDefinition([]), test: async () => matches })
              : undefined,
        },
      );
      expect((await chain.apply(source({ value: "" })))!.value).toBe(matches ? "ac" : "a");
    }
  });

  test("predicates gate transforms; negate inverts them", async () => {
    const config = {
      transforms: "dropTombstones,onlyOrders",
      "transforms.dropTombstones.type": "org.apache.kafka.connect.transforms.Filter",
      "transforms.dropTombstones.predicate": "isTombstone",
      "transforms.onlyOrders.type": "org.apache.kafka.connect.transforms.Filter",
      "transforms.onlyOrders.predicate": "isOrders",
      "transforms.onlyOrders.negate": "true",
      predicates: "isTombstone,isOrders",
      "predicates.isTombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
      "predicates.isOrders.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
      "predicates.isOrders.pattern": "orders.*",
    };
    const chain = TransformChain.fromConfig(config);
    expect(await chain.apply(source({ topic: "orders", value: null }))).toBeNull();
    expect(await chain.apply(source({ topic: "orders", value: 1 }))).not.toBeNull();
    expect(await chain.apply(source({ topic: "customers", value: 1 }))).toBeNull();
  });

  test("sub-settings reach the transform with the prefix removed, predicate/negate/type withheld", () => {
    let seen: Record<string, string> = {};
    const spy: Transformation = {
      configure(c) {
        seen = c;
      },
      config: () => new SettingsDefinition([]),
      apply: (r: ConnectRecord) => newRecord(r, { topic: "spied" }),
    };
    TransformChain.fromConfig(
      {
        transforms: "s",
        "transforms.s.type": "Spy",
        "transforms.s.a": "1",
        "transforms.s.b.c": "2",
        "transforms.s.predicate": "p",
        predicates: "p",
        "predicates.p.type": "RecordIsTombstone",
        "transforms.other.x": "3",
      },
      { lookup: (n) => (n === "Spy" ? () => spy : undefined) },
    );
    expect(seen).toEqual({ a: "1", "b.c": "2" });
  });

  test("configuration errors name the key", () => {
    const fail = (config: Record<string, string>): ConfigError => {
      try {
        TransformChain.fromConfig(config);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return e as ConfigError;
      }
      throw new Error("expected a ConfigError");
    };
    const unknown = fail({ transforms: "x", "transforms.x.type": "com.example.Nope" });
    expect(unknown.setting).toBe("transforms.x.type");
    expect(unknown.message).toBe(
      "Invalid value com.example.Nope for configuration transforms.x.type: Class com.example.Nope could not be found.",
    );
    for (const name of ["constructor", "toString"]) {
      expect(fail({ transforms: "x", "transforms.x.type": name }).message).toBe(
        `Invalid value ${name} for configuration transforms.x.type: Class ${name} could not be found.`,
      );
    }
    expect(fail({ transforms: "x" }).message).toBe(
      'Missing required configuration "transforms.x.type" which has no default value.',
    );
    expect(fail({ transforms: "x,x", "transforms.x.type": "Filter" }).message).toContain("Duplicate alias provided.");
    const bad = fail({
      transforms: "r",
      "transforms.r.type": "RegexRouter",
      "transforms.r.regex": "(a)",
      "transforms.r.replacement": "$2",
    });
    expect(bad.setting).toBe("transforms.r.replacement");
    expect(fail({ transforms: "f", "transforms.f.type": "Filter", "transforms.f.negate": "true" }).message).toBe(
      "Config 'transforms.f.negate' was provided but there is no config 'transforms.f.predicate' defining a predicate to be negated.",
    );
    expect(fail({ transforms: "f", "transforms.f.type": "Filter", "transforms.f.predicate": "p" }).setting).toBe(
      "transforms.f.predicate",
    );
    expect(
      fail({
        transforms: "f",
        "transforms.f.type": "Filter",
        "transforms.f.predicate": "p",
        predicates: "p",
        "predicates.p.type": "Nope",
      }).setting,
    ).toBe("predicates.p.type");
    expect(
      fail({
        transforms: "f",
        "transforms.f.type": "Filter",
        "transforms.f.predicate": "p",
        predicates: "p",
        "predicates.p.type": "TopicNameMatches",
      }).setting,
    ).toBe("predicates.p.pattern");
  });

  test("no transforms: records pass unchanged", async () => {
    const r = source({ value: 1 });
    expect(await TransformChain.fromConfig({}).apply(r)).toBe(r);
    expect(validateTransforms({})).toEqual({});
  });
});

describe("validateTransforms", () => {
  test("a valid pipeline has no problems", () => {
    expect(validateTransforms(PIPELINE)).toEqual({});
  });

  test("reports several problems by key at once", () => {
    const problems = validateTransforms({
      transforms: "a,b,c,d",
      "transforms.a.type": "com.example.Missing",
      "transforms.b.type": "org.apache.kafka.connect.transforms.RegexRouter",
      "transforms.c.type": "org.apache.kafka.connect.transforms.Cast$Value",
      "transforms.c.spec": "a:bytes",
      "transforms.c.replace.null.with.default": "perhaps",
      "transforms.d.type": "org.apache.kafka.connect.transforms.InsertField$Value",
      predicates: "p",
      "predicates.p.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    });
    expect(Object.keys(problems).sort()).toEqual([
      "predicates.p.name",
      "transforms.a.type",
      "transforms.b.regex",
      "transforms.b.replacement",
      "transforms.c.replace.null.with.default",
      "transforms.c.spec",
      "transforms.d.type",
    ]);
    expect(problems["transforms.b.regex"]).toEqual([
      'Missing required configuration "transforms.b.regex" which has no default value.',
    ]);
    expect(problems["transforms.a.type"][0]).toContain("could not be found");
    expect(problems["transforms.d.type"]).toEqual(["No field insertion configured"]);
  });

  test("plugin lookups are consulted", () => {
    const custom = () => configured(new InsertField("value"), { "topic.field": "t" });
    expect(
      validateTransforms(
        { transforms: "c", "transforms.c.type": "com.example.Custom" },
        { lookup: (n) => (n === "com.example.Custom" ? custom : undefined) },
      ),
    ).toEqual({
      "transforms.c.type": ["No field insertion configured"],
    });
    expect(new RegexRouter().config().settings.map((s) => s.name)).toEqual(["regex", "replacement"]);
  });
});
