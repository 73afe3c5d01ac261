import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unsupportedSettingsDoc } from "#src/unsupported-settings-doc.ts";

test("docs/unsupported-settings.md matches the declarations (npm run docs:unsupported)", () => {
  const doc = readFileSync(join(import.meta.dir, "..", "..", "docs", "unsupported-settings.md"), "utf8");
  expect(doc).toBe(`${unsupportedSettingsDoc()}\n`);
});
