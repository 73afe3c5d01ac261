// Rows in COPY's text format: what needs escaping is escaped, NULL is \N, values as the statement path binds them.
import { describe, expect, test } from "bun:test";
import { copyText } from "#src/connectors/jdbc-sink/copy-text.ts";

describe("COPY text rows", () => {
  test("tab-separated fields, one line per row, \\N for NULL", () => {
    expect(
      copyText([
        ["1", "bolt", null],
        [2, "nut", 3],
      ]),
    ).toBe("1\tbolt\t\\N\n2\tnut\t3\n");
  });
  test("backslash, newline, carriage return and tab are escaped; other text goes as it is", () => {
    expect(copyText([["a\\b\nc\rd\te", "\\N", "é 😀 '\""]])).toBe("a\\\\b\\nc\\rd\\te\t\\\\N\té 😀 '\"\n");
  });
  test("booleans as t/f, bytes in bytea's hex form with the backslash doubled", () => {
    expect(copyText([[true, false, new Uint8Array([0, 255, 16]), new Uint8Array(0)]])).toBe(
      "t\tf\t\\\\x00ff10\t\\\\x\n",
    );
  });
  test("a byte view of a larger buffer writes only its own bytes", () => {
    const buffer = new Uint8Array([1, 2, 3, 4]);
    expect(copyText([[buffer.subarray(1, 3)]])).toBe("\\\\x0203\n");
  });
  test("numbers as JavaScript writes them, the special floats as PostgreSQL reads them", () => {
    expect(copyText([[0.1, 1e21, -5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]])).toBe(
      "0.1\t1e+21\t-5\tNaN\tInfinity\t-Infinity\n",
    );
  });
  test("no rows, no text", () => {
    expect(copyText([])).toBe("");
  });
});
