// docs/configuration.md's settings tables are generated from the setting declarations; keep them in sync.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { settingsReference } from "#src/platform/settings.ts";
import { registrySettingsDefinition } from "#src/registry/settings.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";

test("docs/configuration.md's settings tables match the declarations (npm run docs:config)", () => {
  const page = readFileSync(join(import.meta.dir, "..", "..", "docs", "configuration.md"), "utf8");
  expect(page).toContain(settingsReference(registrySettingsDefinition));
  expect(page).toContain(settingsReference(workerSettings));
});
