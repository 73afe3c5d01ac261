import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ByteArrayConverter } from "#src/connect/converters/bytearray.ts";
import { BUILTIN_CONVERTERS } from "#src/connect/converters/index.ts";
import {
  BooleanConverter,
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from "#src/connect/converters/number.ts";
import { DataException, Schema } from "#src/connect/api/data/index.ts";

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

describe("number converters", () => {
  test("big-endian fixed width, optional schemas", () => {
    expect(hex(new ShortConverter().fromConnectData("t", null, -2))).toBe("fffe");
    expect(hex(new IntegerConverter().fromConnectData("t", null, 258))).toBe("00000102");
    expect(hex(new LongConverter().fromConnectData("t", null, -1n))).toBe("ffffffffffffffff");
    expect(hex(new LongConverter().fromConnectData("t", null, 5))).toBe("0000000000000005");
    expect(hex(new FloatConverter().fromConnectData("t", null, 1.5))).toBe("3fc00000");
    expect(hex(new DoubleConverter().fromConnectData("t", null, 1.5))).toBe("3ff8000000000000");
    expect(new IntegerConverter().fromConnectData("t", null, null)).toBeNull();
    expect(new IntegerConverter().toConnectData("t", bytes("ffffffff"))).toEqual({
      schema: Schema.OPTIONAL_INT32_SCHEMA,
      value: -1,
    });
    expect(new LongConverter().toConnectData("t", bytes("7fffffffffffffff"))).toEqual({
      schema: Schema.OPTIONAL_INT64_SCHEMA,
      value: 2n ** 63n - 1n,
    });
    expect(new ShortConverter().toConnectData("t", null)).toEqual({
      schema: Schema.OPTIONAL_INT16_SCHEMA,
      value: null,
    });
    expect(new DoubleConverter().toConnectData("t", bytes("3ff8000000000000")).schema).toBe(
      Schema.OPTIONAL_FLOAT64_SCHEMA,
    );
    expect(new FloatConverter().toConnectData("t", bytes("3fc00000")).value).toBe(1.5);
  });

  test("errors with Kafka's messages", () => {
    expect(() => new IntegerConverter().fromConnectData("t", null, "1")).toThrow(
      new DataException("Failed to serialize to integer (was class java.lang.String): "),
    );
    expect(() => new ShortConverter().fromConnectData("t", null, 40000)).toThrow(
      new DataException("Failed to serialize to short (was class java.lang.Integer): "),
    );
    try {
      new IntegerConverter().toConnectData("t", bytes("0001"));
      throw new Error("no error");
    } catch (e) {
      expect((e as Error).message).toBe("Failed to deserialize integer: ");
      expect(((e as Error).cause as Error).message).toBe("Size of data received by IntegerDeserializer is not 4");
    }
  });

  test("round trips (property)", () => {
    const int = new IntegerConverter();
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        (v) => int.toConnectData("t", int.fromConnectData("t", null, v)).value === v,
      ),
    );
    const long = new LongConverter();
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        (v) => long.toConnectData("t", long.fromConnectData("t", null, v)).value === v,
      ),
    );
    const double = new DoubleConverter();
    fc.assert(
      fc.property(fc.double(), (v) =>
        Object.is(double.toConnectData("t", double.fromConnectData("t", null, v)).value, v),
      ),
    );
    const float = new FloatConverter();
    fc.assert(
      fc.property(fc.float(), (v) => Object.is(float.toConnectData("t", float.fromConnectData("t", null, v)).value, v)),
    );
  });
});

describe("BooleanConverter", () => {
  test("one byte, schema checked", () => {
    const c = new BooleanConverter();
    expect(hex(c.fromConnectData("t", Schema.BOOLEAN_SCHEMA, true))).toBe("01");
    expect(hex(c.fromConnectData("t", null, false))).toBe("00");
    expect(c.toConnectData("t", bytes("01"))).toEqual({ schema: Schema.OPTIONAL_BOOLEAN_SCHEMA, value: true });
    expect(() => c.fromConnectData("t", Schema.INT8_SCHEMA, true)).toThrow(
      new DataException("Invalid schema type for BooleanConverter: INT8"),
    );
    expect(() => c.fromConnectData("t", null, 1)).toThrow(
      new DataException("BooleanConverter is not compatible with objects of type class java.lang.Integer"),
    );
    expect(() => c.toConnectData("t", bytes("02"))).toThrow(new DataException("Failed to deserialize boolean: "));
    expect(() => c.toConnectData("t", bytes("0101"))).toThrow(new DataException("Failed to deserialize boolean: "));
  });
});

describe("ByteArrayConverter", () => {
  test("bytes pass through", () => {
    const c = new ByteArrayConverter();
    const data = new Uint8Array([1, 2]);
    expect(c.fromConnectData("t", Schema.BYTES_SCHEMA, data)).toBe(data);
    expect(c.fromConnectData("t", null, null)).toBeNull();
    expect(c.toConnectData("t", data)).toEqual({ schema: Schema.OPTIONAL_BYTES_SCHEMA, value: data });
    expect(() => c.fromConnectData("t", Schema.STRING_SCHEMA, data)).toThrow(
      new DataException("Invalid schema type for ByteArrayConverter: STRING"),
    );
    expect(() => c.fromConnectData("t", null, "x")).toThrow(
      new DataException("ByteArrayConverter is not compatible with objects of type class java.lang.String"),
    );
  });
});

describe("built-in converters by Kafka class name", () => {
  test("each of Kafka's names makes a working converter", async () => {
    // Confluent's registry-backed converters need schema.registry.url; they have their own tests.
    const kafkas = Object.entries(BUILTIN_CONVERTERS).filter(([name]) => name.startsWith("org.apache.kafka.connect."));
    expect(kafkas.length).toBeGreaterThanOrEqual(9);
    for (const [, make] of kafkas) {
      const converter = make();
      converter.configure({}, false);
      expect((await converter.toConnectData("t", null)).value).toBeNull();
    }
  });
});
