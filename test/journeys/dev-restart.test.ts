// A developer creates connectors through REST in `sluice dev`, lets them run, stops dev and starts it
// again: the connectors are back with their target states, and every line and row arrives exactly once,
// those written while dev was down included. On real Kafka with a FileStream and a PostgreSQL CDC
// source (one paused), and on the embedded broker (no Kafka) with a FileStream source. Connector files
// given at every start are applied as PUTs; a second dev sharing the first's group refuses its files.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Broker } from "#src/broker/broker.ts";
import { createBroker } from "#src/broker/index.ts";
import { connectClient } from "../fixtures/connect.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../fixtures/postgres.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";
import { install, linesWith, type Install, type Running } from "../fixtures/sluice-process.ts";

const installs: Install[] = [];
let pg: PostgresServer | undefined;
afterAll(async () => {
  for (const i of installs) await i.remove();
  await pg?.stop();
}, 60_000);

const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}\n`).join("");
const expectedLines = (to: number) => Array.from({ length: to }, (_, i) => `line ${i}`);

/** dev in `sluice.dir`, its REST APIs on ports of their own; stopped as a developer stops it (Ctrl-C). */
async function startDev(
  sluice: Install,
  connectPort: number,
  extra: string[],
  env: Record<string, string> = {},
): Promise<Running> {
  return sluice.start(
    [
      "dev",
      "--connect-listeners",
      `http://127.0.0.1:${connectPort}`,
      "--registry-listeners",
      `http://127.0.0.1:${freePort()}`,
      "--offset.flush.interval.ms=200",
      ...extra,
    ],
    env,
  );
}
async function stopDev(dev: Running): Promise<void> {
  dev.proc.kill("SIGINT");
  expect(await dev.proc.exited).toBe(0);
}

/** The committed source offset of a connector's only partition (GET /connectors/{name}/offsets). */
async function committed(
  api: ReturnType<typeof connectClient>,
  name: string,
): Promise<Record<string, unknown> | undefined> {
  const r = await api.get(`/connectors/${name}/offsets`);
  return (r.body as { offsets?: { offset: Record<string, unknown> }[] } | undefined)?.offsets?.[0]?.offset;
}

/** Appends to the file and waits for the source to commit an offset at its end: one more flush. */
async function appendCommitted(
  api: ReturnType<typeof connectClient>,
  name: string,
  file: string,
  text: string,
): Promise<void> {
  appendFileSync(file, text);
  const size = statSync(file).size;
  await waitFor(`${name} to commit position ${size}`, async () => (await committed(api, name))?.position === size, {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
}

async function records(broker: Broker, topic: string): Promise<{ key: string | null; value: string | null }[]> {
  const ends = await broker.endOffsets(topic).catch(() => [0]);
  const out: { key: string | null; value: string | null }[] = [];
  const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));
  for (const [partition, end] of ends.entries()) {
    let next = 0;
    while (next < end) {
      const batch = await broker.fetch(topic, partition, next, { maxWaitMs: 1000 });
      if (batch.length === 0) break;
      out.push(...batch.map((r) => ({ key: text(r.key), value: text(r.value) })));
      next = batch[batch.length - 1]!.offset + 1;
    }
  }
  return out;
}

const fileSource = (file: string, topic: string) => ({
  "connector.class": "FileStreamSource",
  "tasks.max": "1",
  file,
  topic,
  "value.converter": "org.apache.kafka.connect.storage.StringConverter",
});

const restoredLine = (output: string) => linesWith(output, "restored").filter((l) => l.includes('"level":"info"'));

describe("dev on Kafka keeps its connectors across a restart", () => {
  test("a FileStream source (paused) and a PostgreSQL CDC source: back as they were, every line and row once", async () => {
    const kafka = await sharedKafka();
    pg = await startPostgres();
    pg.psql("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)");
    pg.psql("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
    const sluice = install();
    installs.push(sluice);
    const run = Date.now();
    const input = join(sluice.dir, "input.txt");
    writeFileSync(input, lines(0, 3));
    const linesTopic = `dev-lines-${run}`;
    const prefix = `devpg${run}`;
    const rowsTopic = `${prefix}.public.items`;
    // Names of its own on the shared broker, through the CONNECT_* environment dev takes.
    const env = {
      CONNECT_GROUP_ID: `dev-restart-${run}`,
      CONNECT_CONFIG_STORAGE_TOPIC: `dev-configs-${run}`,
      CONNECT_OFFSET_STORAGE_TOPIC: `dev-offsets-${run}`,
      CONNECT_STATUS_STORAGE_TOPIC: `dev-status-${run}`,
    };
    const port = freePort();
    const start = () => startDev(sluice, port, ["--bootstrap-servers", kafka.bootstrap], env);
    const api = connectClient(`http://127.0.0.1:${port}`);

    const first = await start();
    expect((await api.post("/connectors", { name: "lines", config: fileSource(input, linesTopic) })).status).toBe(201);
    const json = {
      "key.converter": "org.apache.kafka.connect.json.JsonConverter",
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
      "key.converter.schemas.enable": "false",
      "value.converter.schemas.enable": "false",
    };
    const pgConfig = {
      "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      ...cdcConnection(pg),
      "topic.prefix": prefix,
      "table.include.list": "public.items",
      "slot.name": `dev_${run}`,
      "publication.autocreate.mode": "filtered",
      ...json,
    };
    expect((await api.post("/connectors", { name: "pg", config: pgConfig })).status).toBe(201);
    await api.waitForState("lines", "RUNNING", 1);
    await api.waitForState("pg", "RUNNING", 1);

    // Three flushes of each, observed as committed offsets.
    for (const [from, to] of [
      [3, 5],
      [5, 7],
      [7, 9],
    ] as const)
      await appendCommitted(api, "lines", input, lines(from, to));
    for (const id of [3, 4, 5]) {
      const before = JSON.stringify(await committed(api, "pg"));
      pg.psql(`INSERT INTO items VALUES (${id}, 'row ${id}')`);
      await waitFor(
        `pg to commit past row ${id}`,
        async () => JSON.stringify(await committed(api, "pg")) !== before || undefined,
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    }
    expect((await api.put("/connectors/lines/pause")).status).toBe(202);
    await api.waitForState("lines", "PAUSED", 1);
    await stopDev(first);
    // On a one-broker Kafka, topics asking for three replicas are capped: said once, not per topic;
    // the coordinator's first moments on a fresh group are no cause for a WARN.
    const warnings = linesWith(first.output(), '"level":"warn"');
    expect(warnings.filter((l) => l.includes("capped")).length).toBeLessThanOrEqual(1);
    expect(warnings.filter((l) => /coordinator|could not .* yet/.test(l))).toEqual([]);

    // While dev is down.
    appendFileSync(input, lines(9, 12));
    pg.psql("INSERT INTO items VALUES (6, 'row 6'), (7, 'row 7')");

    const second = await start();
    expect((await api.get("/connectors")).body).toEqual(["lines", "pg"]);
    await api.waitForState("pg", "RUNNING", 1);
    const paused = await api.waitForState("lines", "PAUSED", 1);
    expect(paused.tasks!.some((t) => t.state === "FAILED")).toBe(false);
    const restored = restoredLine(second.output());
    expect(restored.length).toBe(1);
    expect(restored[0]).toContain("lines");
    expect(restored[0]).toContain("PAUSED");
    expect(restored[0]).toContain("pg");
    expect((await api.put("/connectors/lines/resume")).status).toBe(202);
    await api.waitForState("lines", "RUNNING", 1);

    const reader = createBroker({
      bootstrapServers: [kafka.bootstrap],
      dataDir: sluice.dir,
      clientId: "dev-restart-journey",
    });
    await reader.connect();
    try {
      const ids = await waitFor(
        "rows 1-7 in Kafka",
        async () => {
          const all = (await records(reader, rowsTopic))
            .filter((r) => r.value !== null)
            .map((r) => (JSON.parse(r.key!) as { id: number }).id);
          return all.length >= 7 ? all : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(ids.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const got = await waitFor(
        "lines 0-11 in Kafka",
        async () => {
          const all = (await records(reader, linesTopic)).map((r) => r.value);
          return all.length >= 12 ? all : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(got).toEqual(expectedLines(12));
    } finally {
      await reader.close();
    }
    const statuses = await Promise.all(
      ["lines", "pg"].map(
        async (n) => (await api.get(`/connectors/${n}/status`)).body as { tasks: { state: string }[] },
      ),
    );
    expect(statuses.flatMap((s) => s.tasks.map((t) => t.state))).toEqual(["RUNNING", "RUNNING"]);
    await stopDev(second);
  }, 300_000);
});

describe("dev on the embedded broker keeps its connectors across a restart", () => {
  test("a FileStream source created through REST is back after a restart, every line once", async () => {
    const sluice = install();
    installs.push(sluice);
    const input = join(sluice.dir, "input.txt");
    writeFileSync(input, lines(0, 2));
    const port = freePort();
    const api = connectClient(`http://127.0.0.1:${port}`);

    const first = await startDev(sluice, port, []);
    expect((await api.post("/connectors", { name: "lines", config: fileSource(input, "lines") })).status).toBe(201);
    await api.waitForState("lines", "RUNNING", 1);
    for (const [from, to] of [
      [2, 4],
      [4, 6],
      [6, 8],
    ] as const)
      await appendCommitted(api, "lines", input, lines(from, to));
    await stopDev(first);
    appendFileSync(input, lines(8, 10));

    const second = await startDev(sluice, port, []);
    expect((await api.get("/connectors")).body).toEqual(["lines"]);
    await api.waitForState("lines", "RUNNING", 1);
    expect(restoredLine(second.output()).length).toBe(1);
    await appendCommitted(api, "lines", input, "");
    await stopDev(second);

    const reader = createBroker({
      bootstrapServers: [],
      dataDir: join(sluice.dir, "data"),
      clientId: "dev-restart-journey",
    });
    await reader.connect();
    try {
      expect((await records(reader, "lines")).map((r) => r.value)).toEqual(expectedLines(10));
    } finally {
      await reader.close();
    }
  }, 120_000);
});

describe("dev on the embedded broker with exactly-once source support", () => {
  test("killed (-9) three times while a FileStream source streams: every line exactly once", async () => {
    const sluice = install();
    installs.push(sluice);
    const input = join(sluice.dir, "input.txt");
    writeFileSync(input, "");
    const port = freePort();
    const api = connectClient(`http://127.0.0.1:${port}`);
    // Offsets committed rarely at least once (a kill then always repeats lines); exactly once, they go
    // with each poll's records.
    const eos = ["--exactly.once.source.support=enabled", "--offset.flush.interval.ms=60000"];
    const writtenNow = async () =>
      Number(
        (await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).match(
          /sluice_connect_source_records_written_total\{connector="lines",task="0"\} (\d+)/,
        )?.[1] ?? 0,
      );
    let dev = await startDev(sluice, port, eos);
    const config = { ...fileSource(input, "lines"), "exactly.once.support": "required" };
    expect((await api.post("/connectors", { name: "lines", config })).status).toBe(201);
    await api.waitForState("lines", "RUNNING", 1);
    let written = 0;
    for (let round = 0; round < 3; round++) {
      appendFileSync(input, lines(written, written + 3000));
      written += 3000;
      const before = await writtenNow();
      await waitFor("lines written", async () => (await writtenNow()) > before, { timeoutMs: 30_000, intervalMs: 20 });
      // More lines just before the kill: a poll and its transaction are likely in flight.
      appendFileSync(input, lines(written, written + 3000));
      written += 3000;
      dev.proc.kill("SIGKILL");
      await dev.proc.exited;
      dev = await startDev(sluice, port, eos);
      await api.waitForState("lines", "RUNNING", 1);
    }
    await appendCommitted(api, "lines", input, lines(written, written + 10));
    written += 10;
    await stopDev(dev);
    const reader = createBroker({ bootstrapServers: [], dataDir: join(sluice.dir, "data"), clientId: "dev-eos" });
    await reader.connect();
    try {
      expect((await records(reader, "lines")).map((r) => r.value)).toEqual(expectedLines(written));
    } finally {
      await reader.close();
    }
  }, 180_000);
});

describe("dev's connector files across restarts", () => {
  test("a file given at every start is created once; changed, it replaces the stored config and keeps the target state", async () => {
    const sluice = install();
    installs.push(sluice);
    const input = join(sluice.dir, "input.txt");
    writeFileSync(input, lines(0, 3));
    const file = join(sluice.dir, "lines.json");
    writeFileSync(file, JSON.stringify({ name: "lines", config: fileSource(input, "lines") }));
    const port = freePort();
    const api = connectClient(`http://127.0.0.1:${port}`);

    const first = await startDev(sluice, port, [file]);
    await api.waitForState("lines", "RUNNING", 1);
    await appendCommitted(api, "lines", input, "");
    expect((await api.put("/connectors/lines/pause")).status).toBe(202);
    await api.waitForState("lines", "PAUSED", 1);
    await stopDev(first);

    const same = await startDev(sluice, port, [file]);
    expect((await api.get("/connectors")).body).toEqual(["lines"]);
    await api.waitForState("lines", "PAUSED", 1);
    expect(linesWith(same.output(), "from " + file)).toEqual([]);
    await stopDev(same);

    writeFileSync(
      file,
      JSON.stringify({ name: "lines", config: { ...fileSource(input, "lines"), "batch.size": "10" } }),
    );
    const changed = await startDev(sluice, port, [file]);
    expect(((await api.get("/connectors/lines/config")).body as Record<string, string>)["batch.size"]).toBe("10");
    expect(linesWith(changed.output(), `connector lines updated from ${file}`).length).toBe(1);
    await api.waitForState("lines", "PAUSED", 1);
    await stopDev(changed);
  }, 120_000);
});

describe("two devs on one Kafka", () => {
  test("a second dev with the same group and topics does not apply its connector files: it says how to keep apart, and exits", async () => {
    const kafka = await sharedKafka();
    const run = Date.now();
    const env = {
      CONNECT_GROUP_ID: `dev-twice-${run}`,
      CONNECT_CONFIG_STORAGE_TOPIC: `dev-twice-configs-${run}`,
      CONNECT_OFFSET_STORAGE_TOPIC: `dev-twice-offsets-${run}`,
      CONNECT_STATUS_STORAGE_TOPIC: `dev-twice-status-${run}`,
    };
    const [a, b] = [install(), install()];
    installs.push(a, b);
    const file = join(b.dir, "lines.json");
    writeFileSync(
      file,
      JSON.stringify({ name: "lines", config: fileSource(join(b.dir, "input.txt"), `dev-twice-${run}`) }),
    );
    await startDev(a, freePort(), ["--bootstrap-servers", kafka.bootstrap], env);
    const second = await b.exits(
      [
        "dev",
        "--bootstrap-servers",
        kafka.bootstrap,
        "--connect-listeners",
        `http://127.0.0.1:${freePort()}`,
        "--registry-listeners",
        `http://127.0.0.1:${freePort()}`,
        file,
      ],
      { env, timeoutMs: 60_000 },
    );
    expect(second.code).toBe(1);
    const stderr = second.stderr;
    expect(stderr).toContain(`leads group dev-twice-${run}`);
    expect(stderr).toContain("--group.id");
  }, 120_000);
});
