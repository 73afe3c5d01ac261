import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  binaryValue,
  decodeBase64,
  doubleValue,
  floatValue,
  intValue,
  isInt,
  JsonNumber,
  JsonObject,
  longValue,
  nodeType,
  readJson,
} from "#src/connect/converters/json-tree.ts";
import { base64, jsonString, JsonSyntaxError } from "#src/jvm/json-text.ts";

const read = (text: string) => readJson(new TextEncoder().encode(text)).node;

describe("reading JSON as Jackson does", () => {
  test("values, with numbers kept as text", () => {
    const node = read('{"a":[1,-2.50,1e3,"x",true,false,null],"b":{}}') as JsonObject;
    const a = node.fields.get("a") as unknown[];
    expect(a.map((n) => nodeType(n as never))).toEqual([
      "NUMBER",
      "NUMBER",
      "NUMBER",
      "STRING",
      "BOOLEAN",
      "BOOLEAN",
      "NULL",
    ]);
    expect((a[1] as JsonNumber).text).toBe("-2.50");
    expect((a[2] as JsonNumber).integral).toBe(false);
    expect(nodeType(node.fields.get("b"))).toBe("OBJECT");
    expect(nodeType(node.fields.get("missing"))).toBe("MISSING");
  });

  test("Jackson's leniencies and strictness", () => {
    expect((read("007") as JsonNumber).text).toBe("007");
    expect(read("[1] trailing garbage")).toEqual([new JsonNumber("1", true)]);
    expect(read("   ")).toBeUndefined();
    const dup = read('{"a":1,"b":2,"a":3}') as JsonObject;
    expect([...dup.fields.keys()]).toEqual(["a", "b"]);
    expect((dup.fields.get("a") as JsonNumber).text).toBe("3");
    expect(read('"\\u00e9\\ud83d\\ude00\\/"')).toBe("é😀/");
    for (const bad of [
      "12abc",
      "+1",
      ".5",
      "1.",
      "1e",
      "NaN",
      "truex",
      "[1,]",
      "{'a':1}",
      '"a\u0001"',
      '"\\q"',
      "[",
      '{"a"}',
      "\u0001",
      "-",
    ])
      expect(() => read(bad)).toThrow(JsonSyntaxError);
    expect(() => readJson(new Uint8Array([0x22, 0xff, 0x22]))).toThrow(JsonSyntaxError);
    expect(() => read("[".repeat(1001) + "]".repeat(1001))).toThrow("nesting depth");
    let deepest = read("[".repeat(1000) + "]".repeat(1000));
    let depth = 0;
    for (; Array.isArray(deepest); depth++) deepest = deepest[0];
    expect(depth).toBe(1000);
    expect(() => read("1".repeat(1001))).toThrow("Number value length");
  });

  test("whatever JSON.stringify writes, we read back (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const node = read(JSON.stringify(value));
        const plain = (n: unknown): unknown =>
          n instanceof JsonNumber
            ? Number(n.text)
            : n instanceof JsonObject
              ? Object.fromEntries([...n.fields].map(([k, v]) => [k, plain(v)]))
              : Array.isArray(n)
                ? n.map(plain)
                : n;
        return JSON.stringify(plain(node)) === JSON.stringify(value);
      }),
    );
  });
});

describe("JsonNode accessors", () => {
  const n = (text: string) => new JsonNumber(text, !/[.eE]/.test(text));
  test("narrowing as Java's casts", () => {
    expect(intValue(n("4294967297"))).toBe(1);
    expect(intValue(n("-2.9"))).toBe(-2);
    expect(intValue(n("1e10"))).toBe(1410065408);
    expect(intValue(n("1e100"))).toBe(0);
    expect(intValue("7")).toBe(0);
    expect(longValue(n("18446744073709551617"))).toBe(1n);
    expect(longValue(n("9.9e18"))).toBe(BigInt.asIntN(64, 9_900_000_000_000_000_000n));
    expect(isInt(n("2147483647"))).toBe(true);
    expect(isInt(n("2147483648"))).toBe(false);
    expect(isInt(n("1.0"))).toBe(false);
  });

  test("floating point: -0.0 reads as 0.0, floats round once", () => {
    expect(Object.is(doubleValue(n("-0.0")), 0)).toBe(true);
    expect(Object.is(doubleValue(n("-1e-400")), -0)).toBe(true);
    expect(doubleValue(n("1e400"))).toBe(Infinity);
    expect(doubleValue(null)).toBe(0);
    // Halfway between 1 and the next float: a double round trip would say 1.
    expect(floatValue(n("1.0000000596046447753906251"))).toBe(1 + 2 ** -23);
    expect(floatValue(n("1.000000059604644775390625"))).toBe(1);
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => floatValue(n(f.toExponential())) === f),
    );
  });

  test("base64 as Jackson reads it: padding required, spaces only between quads", () => {
    expect(decodeBase64("AQID")).toEqual(new Uint8Array([1, 2, 3]));
    expect(decodeBase64("AQ==")).toEqual(new Uint8Array([1]));
    expect(decodeBase64("AQI=")).toEqual(new Uint8Array([1, 2]));
    expect(decodeBase64(" AQID AQ== ")).toEqual(new Uint8Array([1, 2, 3, 1]));
    for (const bad of ["AQ", "AQI", "A QID", "AQ=D", "AQ-_", "*"]) expect(() => decodeBase64(bad)).toThrow(SyntaxError);
    expect(binaryValue(5 as never)).toBeNull();
    fc.assert(
      fc.property(fc.uint8Array(), (bytes) => Buffer.from(decodeBase64(base64(bytes))).equals(Buffer.from(bytes))),
    );
  });
});

describe("writing JSON strings as Jackson does", () => {
  test("escapes", () => {
    expect(jsonString("plain é ∑ / \u2028")).toBe('"plain é ∑ / \u2028"');
    expect(jsonString('"\\\b\f\n\r\t\u0000\u001f')).toBe('"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001F"');
    expect(jsonString("😀\udc00")).toBe('"\\uD83D\\uDE00\\uDC00"');
  });

  test("JSON.parse reads back every string (property)", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => JSON.parse(jsonString(s)) === s));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
        (s) => JSON.parse(jsonString(s)) === s,
      ),
    );
  });
});
