import { describe, expect, test } from "bun:test";
import { DataException } from "#src/connect/api/data/index.ts";
import { DerivedSchemas } from "#src/connect/converters/derived-schemas.ts";

describe("DerivedSchemas", () => {
  test("parses each distinct text once", () => {
    let parses = 0;
    const schemas = new DerivedSchemas(10, (text) => ({ text, n: ++parses }), "invalid");
    const first = schemas.parse("a");
    expect(schemas.parse("a")).toBe(first);
    expect(schemas.parse("b").n).toBe(2);
    expect(parses).toBe(2);
  });

  test("a text the format refuses is a DataException worded by the mapping, the parser's error its cause", () => {
    const refusal = new Error("no good");
    const schemas = new DerivedSchemas(
      10,
      () => {
        throw refusal;
      },
      "The Avro schema derived from the Connect schema is invalid",
    );
    let caught: unknown;
    try {
      schemas.parse("x");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DataException);
    expect((caught as Error).message).toBe("The Avro schema derived from the Connect schema is invalid: no good");
    expect((caught as Error).cause).toBe(refusal);
  });
});
