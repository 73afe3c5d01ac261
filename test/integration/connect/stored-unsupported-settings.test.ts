// A connector config saved before Sluice refused one of its settings (e.g. by an older Sluice, or
// written to the config topic by another worker) is not run without it: the connector fails, naming
// the setting, instead of running and silently ignoring it. A distributed worker on the embedded broker.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalog } from "#src/catalog.ts";
import { startConnectDistributed, type RunningConnect } from "#src/connect/runtime/server.ts";
import { encodeConfigRecord } from "#src/connect/runtime/storage/internal-records.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { connectClient } from "../../fixtures/connect.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-stored-"));
let connect: RunningConnect;
let api: ReturnType<typeof connectClient>;

beforeAll(async () => {
  const raw: Record<string, string> = {
    listeners: `http://127.0.0.1:${freePort()}`,
    "data.dir": join(dir, "data"),
    "group.id": "stored",
    "config.storage.topic": "stored-configs",
    "offset.storage.topic": "stored-offsets",
    "status.storage.topic": "stored-status",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "file.connectors.enable": "true",
    "task.threads": "0",
  };
  connect = await startConnectDistributed({
    settings: workerSettings.parse(raw).values,
    workerConfig: raw,
    catalog,
    taskThreadEntry: new URL("../../../src/task-thread.ts", import.meta.url).href,
  });
  api = connectClient(connect.urls[0]!);
}, 120_000);
afterAll(async () => {
  await connect?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a stored config with a refused setting fails its connector, naming the setting", async () => {
  const config = {
    name: "old",
    "connector.class": "FileStreamSource",
    file: join(dir, "in.txt"),
    topic: "lines",
    "topic.creation.default.cleanup.policy": "compact",
  };
  await connect.broker.produce("stored-configs", [
    { ...encodeConfigRecord({ kind: "connector", name: "old", config }), partition: 0 },
  ]);
  const status = await waitFor(
    "the stored connector to fail",
    async () => {
      const s = (await api.get("/connectors/old/status")).body as { connector?: { state: string; trace?: string } };
      return s.connector?.state === "FAILED" ? s.connector : undefined;
    },
    { timeoutMs: 30_000 },
  );
  expect(status.trace).toContain(
    "The connector's config, saved before Sluice refused them, has settings Sluice does not support: topic.creation.default.cleanup.policy",
  );
  expect(status.trace).toContain("Sluice creates a missing topic with the broker's defaults");
});
