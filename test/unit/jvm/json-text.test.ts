import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  jsonNestingDepth,
  jsonString,
  JsonSyntaxError,
  jsonSyntaxProblem,
  jsonTreeEquals,
  readJsonText,
  readJsonTree,
  sortedKeys,
  writeJsonTree,
  type JsonReadOptions,
  type JsonTree,
} from "#src/jvm/json-text.ts";

/** Numbers as their text, tagged with whether they are integral. */
type Num = { text: string; integral: boolean };
const num = (text: string, integral: boolean): Num => ({ text, integral });
const read = (text: string, options?: JsonReadOptions) => readJsonTree(text, num, options);
const write = (tree: JsonTree<Num>, output: "string" | "bytes" = "string") =>
  writeJsonTree(tree, (n) => n.text, output);
const failure = (text: string, options?: JsonReadOptions): string => {
  try {
    read(text, options);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonSyntaxError);
    return (e as Error).message;
  }
  throw new Error(`read ${JSON.stringify(text)} without an error`);
};

describe("reading", () => {
  test("numbers reach the shape as their text; objects keep source order, a repeated key its first place and last value", () => {
    const tree = read('{"2":1.50,"1":-0,"b":1e3,"2":[true,false,null,"x"]}') as Map<string, JsonTree<Num>>;
    expect([...tree.keys()]).toEqual(["2", "1", "b"]);
    expect(tree.get("1")).toEqual(num("-0", true));
    expect(tree.get("b")).toEqual(num("1e3", false));
    expect(tree.get("2")).toEqual([true, false, null, "x"]);
    expect(read("  ")).toBeUndefined();
  });

  test("the shape sees where each object starts and ends", () => {
    const spans: string[] = [];
    const text = ' {"a": {"b": []}, "c": {}} ';
    readJsonText<unknown>(text, {
      number: Number,
      object: (_fields, start, end) => spans.push(text.slice(start, end)),
    });
    expect(spans).toEqual(['{"b": []}', "{}", '{"a": {"b": []}, "c": {}}']);
  });

  test("escapes are decoded; control characters and unknown escapes refused", () => {
    expect(read('"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\"\\\\"')).toBe('é😀/\b\f\n\r\t"\\');
    expect(failure('"a\u0001"')).toBe(
      "Illegal unquoted character ((CTRL-CHAR, code 1)): has to be escaped using backslash to be included in string value at line 1, column 3",
    );
    expect(failure('"\\q"')).toBe("Unrecognized character escape ('q' (code 113)) at line 1, column 3");
    expect(failure('"\\u12G4"')).toStartWith("Unexpected character in a \\u escape");
  });

  test("Jackson's messages, with the line and column", () => {
    expect(failure("{")).toBe("Unexpected end-of-input at line 1, column 2");
    expect(failure('{\n  "a" 1}')).toBe(
      "Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value at line 2, column 7",
    );
    expect(failure("[1 2]")).toBe(
      "Unexpected character ('2' (code 50)): was expecting comma to separate Array entries at line 1, column 4",
    );
    expect(failure("{'a':1}")).toStartWith(
      "Unexpected character (''' (code 39)): was expecting double-quote to start field name",
    );
    expect(failure("truex")).toStartWith("Unrecognized token 'truex'");
    expect(failure("1}")).toStartWith(
      "Unexpected character ('}' (code 125)): Expected space separating root-level values",
    );
    for (const bad of ["+1", ".5", "1.", "1e", "-", "[1,]", "\u0001", '{"a"}'])
      expect(() => read(bad)).toThrow(JsonSyntaxError);
  });

  test("StreamReadConstraints: nesting 1000, numbers 1000 characters", () => {
    expect(() => read("[".repeat(1000) + "]".repeat(1000))).not.toThrow();
    expect(failure("[".repeat(1001) + "]".repeat(1001))).toStartWith(
      "Document nesting depth (1001) exceeds the maximum allowed (1000)",
    );
    expect(read("1".repeat(1000))).toEqual(num("1".repeat(1000), true));
    expect(failure("1".repeat(1001))).toStartWith("Number value length (1001) exceeds the maximum allowed (1000)");
  });

  test("after the root value: not read, unless refused by the caller", () => {
    expect(read("[1] trailing garbage")).toEqual([num("1", true)]);
    const trailing = (rest: string) => new JsonSyntaxError(`dangling: ${rest.trim()}`);
    expect(read("[1]  \n", { trailing })).toEqual([num("1", true)]);
    expect(failure("[1] x ", { trailing })).toBe("dangling: x");
  });

  test("comments, when allowed", () => {
    const text = '// a schema\n{"a": /* inline */ 1} /* after */';
    expect(failure(text)).toStartWith("Unexpected character ('/' (code 47))");
    expect(read(text, { comments: true, trailing: () => new Error("unexpected") })).toEqual(
      new Map([["a", num("1", true)]]),
    );
    expect(failure("/* open", { comments: true })).toStartWith("Unexpected end-of-input in a comment");
    expect(failure("/x", { comments: true })).toStartWith(
      "Unexpected character ('x' (code 120)): was expecting either '*' or '/' for a comment",
    );
  });

  test("NaN and Infinity, when allowed, read as the strings Jackson writes", () => {
    expect(failure("NaN")).toStartWith("Unexpected character ('N' (code 78))");
    expect(read("[NaN, Infinity, +Infinity, -Infinity, -1]", { nonNumericNumbers: true })).toEqual([
      "NaN",
      "Infinity",
      "Infinity",
      "-Infinity",
      num("-1", true),
    ]);
    expect(failure("NaNa", { nonNumericNumbers: true })).toStartWith("Unrecognized token 'NaNa'");
  });

  test("leading zeros, when allowed", () => {
    expect(failure("[007]")).toBe("Invalid numeric value: Leading zeroes not allowed at line 1, column 2");
    expect(failure("-01")).toStartWith("Invalid numeric value: Leading zeroes not allowed");
    expect(read("[007, -00.5]", { leadingZeros: true })).toEqual([num("007", true), num("-00.5", false)]);
    expect(read("[0, -0.5, 0e1]")).toEqual([num("0", true), num("-0.5", false), num("0e1", false)]);
  });

  test("whatever JSON.stringify writes, reads back (property)", () => {
    const plain = (v: JsonTree<Num>): unknown =>
      v instanceof Map
        ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]))
        : Array.isArray(v)
          ? v.map(plain)
          : v !== null && typeof v === "object"
            ? Number(v.text)
            : v;
    fc.assert(
      fc.property(
        fc.jsonValue(),
        (value) => JSON.stringify(plain(read(JSON.stringify(value)) as JsonTree<Num>)) === JSON.stringify(value),
      ),
    );
  });
});

describe("writing", () => {
  test("strings: short escapes, upper-case \\u00XX for other controls, '/' and U+2028 raw", () => {
    expect(jsonString('a"b\\c\b\f\n\r\t\u0000\u001f/\u2028é')).toBe(
      '"a\\"b\\\\c\\b\\f\\n\\r\\t\\u0000\\u001F/\u2028é"',
    );
    expect(jsonString("plain")).toBe('"plain"');
  });

  test("surrogates: escaped for byte output (UTF8JsonGenerator), kept for a java.lang.String", () => {
    expect(jsonString("😀\ud800")).toBe('"\\uD83D\\uDE00\\uD800"');
    expect(jsonString("😀\ud800", "bytes")).toBe('"\\uD83D\\uDE00\\uD800"');
    expect(jsonString("😀\ud800", "string")).toBe('"😀\ud800"');
  });

  test("trees: compact, key order as built, numbers as the caller prints them", () => {
    const tree: JsonTree<Num> = new Map<string, JsonTree<Num>>([
      ["2", num("1.50", false)],
      ["1", [true, null, "😀"]],
      ["a", new Map()],
    ]);
    expect(write(tree)).toBe('{"2":1.50,"1":[true,null,"😀"],"a":{}}');
    expect(write(tree, "bytes")).toBe('{"2":1.50,"1":[true,null,"\\uD83D\\uDE00"],"a":{}}');
    expect(write(sortedKeys(read('{"b":{"d":1,"c":2},"a":[{"z":0,"y":0}],"B":0}') as JsonTree<Num>))).toBe(
      '{"B":0,"a":[{"y":0,"z":0}],"b":{"c":2,"d":1}}',
    );
  });

  test("what is written reads back as the same tree (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("string" as const, "bytes" as const), (value, output) => {
        const tree = read(JSON.stringify(value)) as JsonTree<Num>;
        expect(read(write(tree, output))).toEqual(tree);
      }),
    );
  });

  test("nesting depth of JSON text, brackets in strings not counted", () => {
    expect(jsonNestingDepth('{"a":[[1],"[[[\\"["],"b":{}}')).toBe(3);
    expect(jsonNestingDepth("1")).toBe(0);
    expect(jsonNestingDepth("[".repeat(5000), 10)).toBe(11);
  });
});

describe("JsonNode.equals on trees", () => {
  const equal = (a: string, b: string) =>
    jsonTreeEquals(read(a)!, read(b)!, (x, y) => x.integral === y.integral && Number(x.text) === Number(y.text));

  test("objects as maps, arrays in order, scalars by value", () => {
    expect(equal('{"a":1,"b":[true,null,"x"]}', '{"b":[true,null,"x"],"a":1}')).toBe(true);
    expect(equal("[1,2]", "[2,1]")).toBe(false);
    expect(equal('{"a":1}', '{"a":1,"b":2}')).toBe(false);
    expect(equal('{"a":null}', '{"b":null}')).toBe(false);
    expect(equal('"1"', "1")).toBe(false);
    expect(equal("[]", "{}")).toBe(false);
    expect(equal("null", "false")).toBe(false);
  });

  test("numbers by the caller's node equality", () => {
    expect(equal("[1]", "[1]")).toBe(true);
    expect(equal("1", "1.0")).toBe(false);
    expect(equal('{"n":1.50}', '{"n":1.5}')).toBe(true);
  });
});

describe("why a request body is not JSON, in Jackson's words (not the JavaScript engine's)", () => {
  test("cut short, a bad character, a bad token, trailing content", () => {
    expect(jsonSyntaxProblem('{"connector.class": ')).toBe("Unexpected end-of-input at line 1, column 21");
    expect(jsonSyntaxProblem("{not json")).toBe(
      "Unexpected character ('n' (code 110)): was expecting double-quote to start field name at line 1, column 2",
    );
    expect(jsonSyntaxProblem("nope")).toStartWith("Unrecognized token 'nope'");
    expect(jsonSyntaxProblem('{"a":1} x')).toBe("Unexpected content after the JSON value: x");
    expect(jsonSyntaxProblem("  ")).toBe("No content to map due to end-of-input");
  });
});
