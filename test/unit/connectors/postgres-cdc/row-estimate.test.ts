import { describe, expect, test } from "bun:test";
import { progressMessage } from "#src/connectors/postgres-cdc/progress-format.ts";
import { rowsFromSize, VARIABLE_WIDTH } from "#src/connectors/postgres-cdc/row-estimate.ts";

describe("row estimate of a table never analysed", () => {
  test("pages times the rows a page holds at the column types' width", () => {
    // int4 + text: 4 + 32 bytes of data and 28 of overhead per row, (8192 - 24) / 64 = 127 rows per page.
    expect(rowsFromSize(100, 8192, 4 + VARIABLE_WIDTH)).toBe(12_700);
    expect(rowsFromSize(0, 8192, 36)).toBe(0);
  });

  test("a row wider than a page still counts one per page", () => {
    expect(rowsFromSize(10, 8192, 20_000)).toBe(10);
  });

  test("the progress line says when the estimate comes from the size", () => {
    const p = { table: "public.t", rows: 500, estimate: 1000, elapsedMs: 1000 };
    expect(progressMessage({ ...p, fromSize: true })).toBe(
      "snapshot of public.t: 500 of ~1,000 rows estimated from its size (50%), 500 rows/s, about 1s left",
    );
    expect(progressMessage(p)).toBe("snapshot of public.t: 500 of ~1,000 rows (50%), 500 rows/s, about 1s left");
  });
});
