// Files dist/sluice writes after start-up (the standalone offsets file) exist from start-up, whichever
// broker it runs on; a place it cannot write fails start-up naming the path and the setting. dev keeps
// its offsets in a topic, and takes those of the file an earlier dev left there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { encodeByteMap } from "#src/connect/runtime/storage/java-byte-map.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { install, type Install } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

let installed: Install;
let dir: string;
let bootstrap: string;
let kafka: KafkaBroker;

beforeAll(async () => {
  installed = install("sluice-files-");
  ({ dir } = installed);
  bootstrap = (await sharedKafka()).bootstrap;
  kafka = new KafkaBroker({ bootstrapServers: [bootstrap] });
  await kafka.connect();
}, 180_000);
afterAll(async () => {
  await kafka?.close();
  await installed.remove();
});

/** Starts `sluice <args>` in `cwd` and waits for the connect worker's REST API. */
async function startSluice(cwd: string, args: string[], connectPort: number): Promise<Subprocess> {
  const { proc } = await installed.serve(args, { cwd, readyUrl: `http://127.0.0.1:${connectPort}/connectors` });
  return proc;
}

async function stop(proc: Subprocess): Promise<string> {
  proc.kill("SIGTERM");
  await proc.exited;
  return new Response(proc.stderr as ReadableStream).text();
}

async function topicValues(topic: string): Promise<string[]> {
  const [end] = await kafka.endOffsets(topic).catch(() => [0]);
  const out: string[] = [];
  while (out.length < (end ?? 0)) {
    const records = await kafka.fetch(topic, 0, out.length, { maxBytes: 1_000_000 });
    out.push(...records.map((r) => new TextDecoder().decode(r.value ?? new Uint8Array())));
  }
  return out;
}

/** Runs a command expected to refuse start-up; returns its exit code and stderr. */
const refusedStart = (cwd: string, args: string[]) => installed.exits(args, { cwd, env: { SLUICE_LOG_LEVEL: "warn" } });

describe("dist/sluice local files", () => {
  test("dev on Kafka carries an earlier dev's ./data/connect.offsets into its offsets topic once; its connector file carries on from there", async () => {
    const cwd = mkdtempSync(join(dir, "dev-"));
    const run = Date.now();
    const topic = `lines-${run}`;
    const input = join(cwd, "input.txt");
    writeFileSync(input, "one\ntwo\nthree\nfour\nfive\n");
    writeFileSync(
      join(cwd, "source.properties"),
      `name=lines\nconnector.class=FileStreamSource\nfile=${input}\ntopic=${topic}\nvalue.converter=org.apache.kafka.connect.storage.StringConverter\n`,
    );
    // What an earlier dev left: lines one-three sent, their offset committed to the file.
    const offsetsFile = join(cwd, "data", "connect.offsets");
    mkdirSync(join(cwd, "data"));
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    writeFileSync(
      offsetsFile,
      encodeByteMap([[bytes(["lines", { filename: input }]), bytes({ position: "one\ntwo\nthree\n".length })]]),
    );
    const [registryPort, connectPort] = [freePort(), freePort()];
    const args = [
      "dev",
      "--bootstrap-servers",
      bootstrap,
      "--registry-listeners",
      `http://127.0.0.1:${registryPort}`,
      "--connect-listeners",
      `http://127.0.0.1:${connectPort}`,
      `--kafkastore.topic=_schemas_files_${run}`,
      `--schema.registry.group.id=files-${run}`,
      `--group.id=files-connect-${run}`,
      `--config.storage.topic=files-configs-${run}`,
      `--offset.storage.topic=files-offsets-${run}`,
      `--status.storage.topic=files-status-${run}`,
      "--offset.flush.interval.ms=100",
      "source.properties",
    ];

    let proc = await startSluice(cwd, args, connectPort);
    await waitFor("lines four and five in Kafka", async () => (await topicValues(topic)).length === 2 || undefined);
    expect(existsSync(offsetsFile)).toBe(false);
    expect(existsSync(`${offsetsFile}.migrated`)).toBe(true);
    await waitFor("the offset after five lines committed", async () => {
      const r = await fetch(`http://127.0.0.1:${connectPort}/connectors/lines/offsets`).then(
        (r) => r.json() as Promise<{ offsets: { offset: { position: number } }[] }>,
      );
      return r.offsets[0]?.offset.position === readFileSync(input).length || undefined;
    });
    expect(await stop(proc)).not.toContain("ENOENT");

    appendFileSync(input, "six\n");
    proc = await startSluice(cwd, args, connectPort);
    try {
      await waitFor("line six in Kafka", async () => (await topicValues(topic)).length >= 3 || undefined);
      expect(await fetch(`http://127.0.0.1:${connectPort}/connectors`).then((r) => r.json())).toEqual(["lines"]);
      expect(await topicValues(topic)).toEqual(["four", "five", "six"]);
    } finally {
      await stop(proc);
    }
  }, 120_000);

  test("connect-standalone creates the directory of offset.storage.file.filename at start-up", async () => {
    const cwd = mkdtempSync(join(dir, "standalone-"));
    const connectPort = freePort();
    const offsetsFile = join(cwd, "state", "nested", "worker.offsets");
    writeFileSync(
      join(cwd, "worker.properties"),
      `bootstrap.servers=${bootstrap}\nlisteners=http://127.0.0.1:${connectPort}\noffset.storage.file.filename=${offsetsFile}\n`,
    );
    const proc = await startSluice(cwd, ["connect-standalone", "worker.properties"], connectPort);
    try {
      expect(existsSync(offsetsFile)).toBe(true);
      expect(existsSync(join(cwd, "data"))).toBe(false);
    } finally {
      await stop(proc);
    }
  }, 60_000);

  test("an offsets file or data directory Sluice cannot write fails start-up naming the path and the setting", async () => {
    const cwd = mkdtempSync(join(dir, "unwritable-"));
    // A directory below a regular file cannot be created, whoever runs the test (root included).
    const locked = join(cwd, "a-file");
    writeFileSync(locked, "");
    const connectPort = freePort();
    writeFileSync(
      join(cwd, "worker.properties"),
      `bootstrap.servers=${bootstrap}\nlisteners=http://127.0.0.1:${connectPort}\noffset.storage.file.filename=${join(locked, "sub", "worker.offsets")}\n`,
    );
    const standalone = await refusedStart(cwd, ["connect-standalone", "worker.properties"]);
    expect(standalone.code).not.toBe(0);
    expect(standalone.stderr).toContain("offset.storage.file.filename");
    expect(standalone.stderr).toContain(join(locked, "sub"));

    const dev = await refusedStart(cwd, [
      "dev",
      "--data-dir",
      join(locked, "data"),
      "--registry-listeners",
      `http://127.0.0.1:${freePort()}`,
      "--connect-listeners",
      `http://127.0.0.1:${connectPort}`,
    ]);
    expect(dev.code).not.toBe(0);
    expect(dev.stderr).toContain("data.dir");
    expect(dev.stderr).toContain(join(locked, "data"));
  }, 60_000);
});
