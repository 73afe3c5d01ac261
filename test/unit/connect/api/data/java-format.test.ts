import { describe, expect, test } from "bun:test";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import { javaClassName, javaToString, valuesToString } from "#src/connect/api/data/java-format.ts";
import { Schema, SchemaBuilder } from "#src/connect/api/data/schema.ts";
import { Struct } from "#src/connect/api/data/struct.ts";

describe("Java toString and class names", () => {
  test("values print as Java prints them", () => {
    expect(javaToString(null)).toBe("null");
    expect(javaToString(5)).toBe("5");
    expect(javaToString(5, Schema.FLOAT64_SCHEMA)).toBe("5.0");
    expect(javaToString(Math.fround(0.1), Schema.FLOAT32_SCHEMA)).toBe("0.1");
    expect(javaToString(1.5)).toBe("1.5");
    expect(javaToString(12n)).toBe("12");
    expect(javaToString(true)).toBe("true");
    expect(javaToString([1, "a", null])).toBe("[1, a, null]");
    expect(
      javaToString(
        new Map<unknown, unknown>([
          ["a", 1],
          [2, [3]],
        ]),
      ),
    ).toBe("{a=1, 2=[3]}");
    expect(javaToString({ k: "v" })).toBe("{k=v}");
    expect(javaToString(new Uint8Array([1, 255]))).toBe("[1, -1]");
    expect(javaToString(new BigDecimal(-15n, 1))).toBe("-1.5");
    expect(javaToString(new Date(Date.UTC(2024, 1, 29, 13, 5, 9)))).toBe("Thu Feb 29 13:05:09 UTC 2024");
    const s = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA).build();
    expect(javaToString(new Struct(s).put("a", 1))).toBe("Struct{a=1}");
    expect(javaToString([1, 2], SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build())).toBe("[1.0, 2.0]");
  });

  test("the Java class an equivalent JVM value has", () => {
    expect(javaClassName("x")).toBe("class java.lang.String");
    expect(javaClassName(1)).toBe("class java.lang.Integer");
    expect(javaClassName(2 ** 40)).toBe("class java.lang.Long");
    expect(javaClassName(0.5)).toBe("class java.lang.Double");
    expect(javaClassName(1n)).toBe("class java.lang.Long");
    expect(javaClassName(2n ** 64n)).toBe("class java.math.BigInteger");
    expect(javaClassName(new Uint8Array())).toBe("class [B");
    expect(javaClassName([])).toBe("class java.util.ArrayList");
    expect(javaClassName({})).toBe("class java.util.HashMap");
    expect(javaClassName(new Date())).toBe("class java.util.Date");
    expect(javaClassName(new BigDecimal(1n, 0))).toBe("class java.math.BigDecimal");
    expect(javaClassName(new Set())).toBe("class Set");
  });
});

describe("Values.convertToString (SimpleHeaderConverter's text)", () => {
  test("top-level strings as they are, nested ones quoted and escaped", () => {
    expect(valuesToString('a "b" \\ c')).toBe('a "b" \\ c');
    expect(valuesToString(['a "b"', "c\\d", null])).toBe('["a \\"b\\"","c\\\\d",null]');
  });
  test("structs and maps in a JSON-like form, numbers as Java prints them", () => {
    const key = SchemaBuilder.struct()
      .field("id", Schema.INT32_SCHEMA)
      .field("name", Schema.OPTIONAL_STRING_SCHEMA)
      .field("score", Schema.FLOAT64_SCHEMA)
      .build();
    expect(valuesToString(new Struct(key).put("id", 10).put("name", null).put("score", 1), key)).toBe(
      '{"id":10,"name":null,"score":1.0}',
    );
    expect(valuesToString(new Map([["k", 1n]]))).toBe('{"k":1}');
    expect(valuesToString(new BigDecimal(-5n, 7))).toBe("-5E-7");
  });
  test("bytes in base64 (quoted when nested), dates in ISO-8601 UTC", () => {
    expect(valuesToString(new Uint8Array([0, 255]))).toBe("AP8=");
    expect(valuesToString([new Uint8Array([1])])).toBe('["AQ=="]');
    expect(valuesToString(new Date(Date.UTC(2024, 4, 6)))).toBe("2024-05-06");
    expect(valuesToString(new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 10)))).toBe("2024-05-06T07:08:09.010Z");
    expect(valuesToString(new Date(3_723_004))).toBe("01:02:03.004Z");
  });
});
