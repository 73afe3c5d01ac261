import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConfigError } from "#src/platform/settings.ts";
import { StringConverter } from "#src/connect/converters/string.ts";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import { Schema, SchemaBuilder, Struct } from "#src/connect/api/data/index.ts";

function converter(config: Record<string, string> = {}, isKey = false): StringConverter {
  const c = new StringConverter();
  c.configure(config, isKey);
  return c;
}
const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));

describe("StringConverter", () => {
  test("writes toString() as Java would, reads an optional string", () => {
    const c = converter();
    const text = (schema: Schema | null, value: unknown) =>
      new TextDecoder().decode(c.fromConnectData("t", schema, value)!);
    expect(text(Schema.STRING_SCHEMA, "héllo")).toBe("héllo");
    expect(text(null, 42)).toBe("42");
    expect(text(Schema.FLOAT64_SCHEMA, 42)).toBe("42.0");
    expect(text(null, 123n)).toBe("123");
    expect(text(null, new BigDecimal(15n, 1))).toBe("1.5");
    const s = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA).build();
    expect(text(s, new Struct(s).put("a", 1))).toBe("Struct{a=1}");
    expect(c.fromConnectData("t", Schema.STRING_SCHEMA, null)).toBeNull();
    expect(c.toConnectData("t", new TextEncoder().encode("x"))).toEqual({
      schema: Schema.OPTIONAL_STRING_SCHEMA,
      value: "x",
    });
    expect(c.toConnectData("t", null)).toEqual({ schema: Schema.OPTIONAL_STRING_SCHEMA, value: null });
  });

  test("Java encodings", () => {
    expect(hex(converter({ "converter.encoding": "UTF-16" }).fromConnectData("t", null, "aé"))).toBe("feff006100e9");
    expect(hex(converter({ "converter.encoding": "utf-16le" }).fromConnectData("t", null, "a"))).toBe("6100");
    expect(hex(converter({ "converter.encoding": "ISO-8859-1" }).fromConnectData("t", null, "é€"))).toBe("e93f");
    expect(hex(converter({ "converter.encoding": "US-ASCII" }).fromConnectData("t", null, "aé"))).toBe("613f");
    expect(hex(converter().fromConnectData("t", null, "a\ud800"))).toBe("613f");
    expect(converter({ "converter.encoding": "latin1" }).toConnectData("t", new Uint8Array([0xe9, 0x80])).value).toBe(
      "é\u0080",
    );
    expect(
      converter({ "converter.encoding": "UTF-16" }).toConnectData("t", new Uint8Array([0xff, 0xfe, 0x61, 0x00])).value,
    ).toBe("a");
    expect(converter({ "converter.encoding": "UTF-16" }).toConnectData("t", new Uint8Array([0x00, 0x61])).value).toBe(
      "a",
    );
    expect(converter({ "converter.encoding": "US-ASCII" }).toConnectData("t", new Uint8Array([0x61, 0xff])).value).toBe(
      "a\ufffd",
    );
    expect(converter().toConnectData("t", new Uint8Array([0x61, 0xff])).value).toBe("a\ufffd");
    // The (de)serializer's own setting wins, as in Kafka.
    expect(
      hex(
        converter({ "converter.encoding": "UTF-8", "value.serializer.encoding": "UTF-16BE" }).fromConnectData(
          "t",
          null,
          "a",
        ),
      ),
    ).toBe("0061");
    expect(() => converter({ "converter.encoding": "EBCDIC-42" })).toThrow(ConfigError);
  });

  test("round-trips any well-formed string in every encoding that holds it (property)", () => {
    for (const encoding of ["UTF-8", "UTF-16", "UTF-16BE", "UTF-16LE"]) {
      const c = converter({ "converter.encoding": encoding });
      fc.assert(
        fc.property(
          fc.string({ unit: "binary" }),
          (s) => c.toConnectData("t", c.fromConnectData("t", null, s)).value === s,
        ),
      );
    }
  });
});
