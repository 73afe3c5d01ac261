import { describe, expect, test } from "bun:test";
import {
  formatDuration,
  progressMessage,
  rowsPerSecond,
  timeLeftMs,
} from "#src/connectors/postgres-cdc/progress-format.ts";

describe("snapshot progress figures", () => {
  test("rate is rows per second so far, 0 before time passed", () => {
    expect(rowsPerSecond(25_000, 2_000)).toBe(12_500);
    expect(rowsPerSecond(10, 0)).toBe(0);
  });

  test("time left is the estimate's remainder at the rate so far", () => {
    expect(timeLeftMs({ table: "public.t", rows: 25_000, estimate: 100_000, elapsedMs: 5_000 })).toBe(15_000);
  });

  test("no time left without an estimate, without a rate, or once the count passed a stale estimate", () => {
    expect(timeLeftMs({ table: "public.t", rows: 100, estimate: null, elapsedMs: 1_000 })).toBeNull();
    expect(timeLeftMs({ table: "public.t", rows: 0, estimate: 100, elapsedMs: 1_000 })).toBeNull();
    expect(timeLeftMs({ table: "public.t", rows: 150, estimate: 100, elapsedMs: 1_000 })).toBeNull();
  });

  test("durations read at a useful precision", () => {
    expect(formatDuration(400)).toBe("0.4s");
    expect(formatDuration(12_300)).toBe("12s");
    expect(formatDuration(187_000)).toBe("3m07s");
    expect(formatDuration(7_500_000)).toBe("2h05m");
  });

  test("the progress line", () => {
    expect(progressMessage({ table: "public.t", rows: 250_000, estimate: 1_000_000, elapsedMs: 20_000 })).toBe(
      "snapshot of public.t: 250,000 of ~1,000,000 rows (25%), 12,500 rows/s, about 1m00s left",
    );
    expect(progressMessage({ table: "public.t", rows: 1_200, estimate: 1_000, elapsedMs: 1_000 })).toBe(
      "snapshot of public.t: 1,200 of ~1,000 rows (100%), 1,200 rows/s",
    );
    expect(progressMessage({ table: "public.t", rows: 500, estimate: null, elapsedMs: 1_000 })).toBe(
      "snapshot of public.t: 500 rows (no estimate), 500 rows/s",
    );
  });
});
