// docs/mirror-maker.md's settings table is the declarations' (settingsReference), so it cannot drift.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mirrorSourceSettings } from "#src/connectors/mirror/source-config.ts";
import { settingsReference } from "#src/platform/settings.ts";

test("docs/mirror-maker.md lists MirrorSourceConnector's settings as declared", () => {
  const page = readFileSync(join(import.meta.dir, "..", "..", "..", "..", "docs", "mirror-maker.md"), "utf8");
  expect(page).toContain("## MirrorSourceConnector");
  expect(page).toContain(settingsReference(mirrorSourceSettings));
});
