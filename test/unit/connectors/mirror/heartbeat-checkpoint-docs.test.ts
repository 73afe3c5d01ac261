// docs/mirror-maker.md's settings tables of the heartbeat and checkpoint connectors are the declarations'
// (settingsReference), so they cannot drift.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkpointSettings } from "#src/connectors/mirror/checkpoint-config.ts";
import { heartbeatSettings } from "#src/connectors/mirror/heartbeat.ts";
import { settingsReference } from "#src/platform/settings.ts";

const page = readFileSync(join(import.meta.dir, "..", "..", "..", "..", "docs", "mirror-maker.md"), "utf8");

test("docs/mirror-maker.md lists MirrorHeartbeatConnector's settings as declared", () => {
  expect(page).toContain("## MirrorHeartbeatConnector");
  expect(page).toContain(settingsReference(heartbeatSettings));
});

test("docs/mirror-maker.md lists MirrorCheckpointConnector's settings as declared", () => {
  expect(page).toContain("## MirrorCheckpointConnector");
  expect(page).toContain(settingsReference(checkpointSettings));
});
