// The README's configuration reference is generated from the setting declarations; keep it in sync.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { settingsReference } from "../../src/platform/settings.ts";
import { registrySettingsDefinition } from "../../src/registry/settings.ts";
import { workerSettings } from "../../src/connect/runtime/worker/worker-config.ts";

test("README's settings tables match the declarations (npm run docs:config)", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  expect(readme).toContain(settingsReference(registrySettingsDefinition));
  expect(readme).toContain(settingsReference(workerSettings));
});
