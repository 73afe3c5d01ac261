import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadErrorText } from "#src/connect/runtime/plugins/load-error.ts";

test("a module that does not build: file:line:column and Bun's message", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-load-error-"));
  const file = join(dir, "broken.ts");
  writeFileSync(file, "export default (sdk) => {\n  const x = ;\n};\n");
  try {
    const err = await import(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(loadErrorText(err)).toBe(`${file}:2:13: Unexpected ;`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("several build errors, one a line; other errors by their message", () => {
  const at = (line: number, message: string) => ({ message, position: { file: "/p/a.ts", line, column: 1 } });
  expect(loadErrorText(new AggregateError([at(1, "one"), at(3, "two")]))).toBe("/p/a.ts:1:1: one\n/p/a.ts:3:1: two");
  expect(loadErrorText(new Error("factory failed"))).toBe("factory failed");
  expect(loadErrorText("text")).toBe("text");
});
