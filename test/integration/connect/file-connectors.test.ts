// The FileStream connectors read and write any file the worker can, for whoever may call the REST
// API: as Kafka since KAFKA-13748, connect-standalone and connect-distributed offer them only when
// asked to (a plugin.path entry named connect-file…, as Kafka's quickstart, or
// file.connectors.enable=true); `sluice dev` offers them (test/integration/connect/bad-input.test.ts).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONNECT_FILE_JAR, connectClient } from "../../fixtures/connect.ts";
import { startSluice } from "../../fixtures/sluice-process.ts";
import { freePort } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-file-connectors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The connector classes connect-standalone offers with these worker settings. */
async function offered(
  name: string,
  settings: Record<string, string>,
): Promise<{ classes: string[]; created: number }> {
  const url = `http://127.0.0.1:${freePort()}`;
  const work = join(dir, name);
  const worker = join(dir, `${name}.properties`);
  writeFileSync(
    worker,
    Object.entries({
      listeners: url,
      "data.dir": join(work, "data"),
      "plugin.path": join(work, "plugins"),
      ...settings,
    })
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  const sluice = await startSluice(["connect-standalone", worker], { cwd: dir, readyUrl: `${url}/connectors` });
  try {
    const api = connectClient(url);
    const classes = ((await api.get("/connector-plugins")).body as { class: string }[]).map((p) => p.class);
    const created = await api.post("/connectors", {
      name: "shadow",
      config: { "connector.class": "FileStreamSource", file: "/etc/shadow", topic: "shadow" },
    });
    return { classes, created: created.status };
  } finally {
    await sluice.stop();
  }
}

const FILE_CONNECTORS = [
  "org.apache.kafka.connect.file.FileStreamSinkConnector",
  "org.apache.kafka.connect.file.FileStreamSourceConnector",
];

test("connect-standalone: off by default; on with plugin.path=…/connect-file-<version>.jar or file.connectors.enable=true", async () => {
  const off = await offered("default", {});
  expect(off.classes.filter((c) => FILE_CONNECTORS.includes(c))).toEqual([]);
  expect(off.created).toBe(400);
  const jar = await offered("jar", { "plugin.path": `${join(dir, "plugins")},${join(dir, "libs", CONNECT_FILE_JAR)}` });
  expect(jar.classes.filter((c) => FILE_CONNECTORS.includes(c))).toEqual(FILE_CONNECTORS);
  // Only the entry's last element counts: a folder that merely contains connect-file does not.
  const folder = await offered("folder", { "plugin.path": join(dir, "connect-file-stuff", "plugins") });
  expect(folder.classes.filter((c) => FILE_CONNECTORS.includes(c))).toEqual([]);
  const setting = await offered("setting", { "file.connectors.enable": "true" });
  expect(setting.classes.filter((c) => FILE_CONNECTORS.includes(c))).toEqual(FILE_CONNECTORS);
  expect(setting.created).toBe(201);
}, 120_000);
