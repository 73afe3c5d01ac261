import { describe, expect, test } from "bun:test";
import { renderTextLine } from "#src/platform/log-text.ts";

const line = (entry: Record<string, unknown>) => `${JSON.stringify(entry)}\n`;
const at = "2026-11-24T10:00:00.000Z";

describe("a log line as a person reads it", () => {
  test("time, level name, logger, message, then the key fields", () => {
    const text = renderTextLine(
      line({ level: "info", time: at, logger: "worker", connector: "orders", task: 0, msg: "task orders-0 started" }),
      false,
    );
    expect(text).toBe(`${at} INFO  [worker] task orders-0 started connector=orders task=0\n`);
  });

  test("a value with spaces or quotes is quoted; objects are JSON", () => {
    const text = renderTextLine(
      line({ level: "warn", time: at, msg: "m", reason: "no such host", urls: ["http://a:1"], none: null }),
      false,
    );
    expect(text).toBe(`${at} WARN  m reason="no such host" urls=["http://a:1"] none=null\n`);
  });

  test("an error string is a field; a serialized Error shows its stack below", () => {
    expect(renderTextLine(line({ level: "error", time: at, msg: "failed", err: "boom" }), false)).toBe(
      `${at} ERROR failed err=boom\n`,
    );
    const text = renderTextLine(
      line({
        level: "error",
        time: at,
        msg: "failed",
        err: { type: "Error", message: "bad", stack: "Error: bad\n    at f (x.ts:1:1)" },
      }),
      false,
    );
    expect(text).toBe(`${at} ERROR failed\nError: bad\n    at f (x.ts:1:1)\n`);
  });

  test("colour only when asked: the level is painted, the message is not", () => {
    const plain = renderTextLine(line({ level: "warn", time: at, msg: "careful" }), false);
    const painted = renderTextLine(line({ level: "warn", time: at, msg: "careful" }), true);
    expect(plain).not.toContain("\u001b[");
    expect(painted).toContain("\u001b[33mWARN \u001b[0m");
    expect(painted).toContain(" careful");
  });

  test("a line that is not a JSON object passes unchanged", () => {
    expect(renderTextLine("plain text\n", false)).toBe("plain text\n");
    expect(renderTextLine("42\n", false)).toBe("42\n");
  });
});
