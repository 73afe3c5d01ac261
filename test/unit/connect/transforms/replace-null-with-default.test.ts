// replace.null.with.default across the transforms that rebuild a Struct (their copies of the field
// values share one helper): a null field with a default reads as the default unless the setting is
// false, and a field the transform does not touch keeps its value either way.
import { describe, expect, test } from "bun:test";
import { SchemaBuilder, Struct, type Schema } from "#src/connect/api/data/index.ts";
import type { Transformation } from "#src/connect/api/transformation.ts";
import {
  Cast,
  ExtractField,
  HeaderFrom,
  MaskField,
  ReplaceField,
  SetSchemaMetadata,
  TimestampConverter,
  ValueToKey,
} from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

const schema = SchemaBuilder.struct()
  .name("shop.Order")
  .field("opt", SchemaBuilder.int32().optional().defaultValue(5).build())
  .field("name", SchemaBuilder.string().optional().build())
  .field("ts", SchemaBuilder.int64().optional().build())
  .build();

function order(): Struct {
  return new Struct(schema).put("name", "n").put("ts", 1000n);
}

const transforms: Record<string, [() => Transformation, Record<string, string>]> = {
  Cast: [() => new Cast("value"), { spec: "name:string" }],
  MaskField: [() => new MaskField("value"), { fields: "name" }],
  TimestampConverter: [() => new TimestampConverter("value"), { field: "ts", "target.type": "Timestamp" }],
  SetSchemaMetadata: [() => new SetSchemaMetadata("value"), { "schema.name": "shop.Renamed" }],
  "HeaderFrom (move)": [() => new HeaderFrom("value"), { fields: "name", headers: "h", operation: "move" }],
  ReplaceField: [() => new ReplaceField("value"), { renames: "opt:optional" }],
};

function optOf(value: Struct): unknown {
  return value.schema.field("opt") !== null ? value.getWithoutDefault("opt") : value.getWithoutDefault("optional");
}

describe("replace.null.with.default", () => {
  for (const [name, [create, config]] of Object.entries(transforms)) {
    test(`${name}: a null field with a default is copied as the default, or as null when false`, () => {
      const withDefault = configured(create(), config).apply(
        source({ valueSchema: schema, value: order() }),
      ) as ReturnType<typeof source>;
      expect(optOf(withDefault.value as Struct)).toBe(5);
      const withoutDefault = configured(create(), { ...config, "replace.null.with.default": "false" }).apply(
        source({ valueSchema: schema, value: order() }),
      ) as ReturnType<typeof source>;
      expect(optOf(withoutDefault.value as Struct)).toBeNull();
      expect((withoutDefault.valueSchema as Schema).type).toBe("STRUCT");
    });
  }

  test("HeaderFrom (copy) puts the default, or null, in the header", () => {
    const config = { fields: "opt", headers: "h", operation: "copy" };
    const on = configured(new HeaderFrom("value"), config).apply(source({ valueSchema: schema, value: order() }));
    expect(on.headers.at(-1)?.value).toBe(5);
    const off = configured(new HeaderFrom("value"), { ...config, "replace.null.with.default": "false" }).apply(
      source({ valueSchema: schema, value: order() }),
    );
    expect(off.headers.at(-1)?.value).toBeNull();
  });

  test("ValueToKey and ExtractField read the default, or null", () => {
    const record = () => source({ valueSchema: schema, value: order() });
    expect(
      (configured(new ValueToKey(), { fields: "opt" }).apply(record()).key as Struct).getWithoutDefault("opt"),
    ).toBe(5);
    expect(
      (
        configured(new ValueToKey(), { fields: "opt", "replace.null.with.default": "false" }).apply(record())
          .key as Struct
      ).getWithoutDefault("opt"),
    ).toBeNull();
    expect(configured(new ExtractField("value"), { field: "opt" }).apply(record()).value).toBe(5);
    expect(
      configured(new ExtractField("value"), { field: "opt", "replace.null.with.default": "false" }).apply(record())
        .value,
    ).toBeNull();
  });
});
