// A Kafka Connect standalone user moves to Sluice and back: Apache Kafka Connect reads lines of a file
// into Kafka with FileStreamSource and stops; dist/sluice connect-standalone, given the same worker and
// connector files (so the same offset.storage.file.filename, Java-serialized by Kafka's
// FileOffsetBackingStore), carries on from Kafka's offsets; Kafka Connect then carries on from Sluice's.
// The topic holds every line exactly once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBroker } from "#src/broker/index.ts";
import type { Broker } from "#src/broker/broker.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { kafkaConnectClasspath, startKafkaConnect } from "../fixtures/kafka-connect.ts";
import { waitFor } from "../fixtures/wait.ts";
import { install, type Install } from "../fixtures/sluice-process.ts";

let sluice: Install;
let broker: Broker;
const dir = mkdtempSync(join(tmpdir(), "kafka-connect-user-"));
beforeAll(() => {
  sluice = install();
}, 180_000);
afterAll(async () => {
  await broker?.close();
  await sluice.remove();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const topic = `first-day-lines-${Date.now()}`;
const input = join(dir, "input.txt");
const offsetsFile = join(dir, "connect.offsets");
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}\n`).join("");

/** The offsets file holds `{"position":<the input's size>}`: every line so far is committed (Kafka writes the JSON bytes as they are). */
const committedAll = () => readFileSync(offsetsFile).includes(`{"position":${statSync(input).size}}`);

async function topicLines(): Promise<string[]> {
  const [end] = await broker.endOffsets(topic);
  const records = [];
  while (records.length < end!) records.push(...(await broker.fetch(topic, 0, records.length, { maxWaitMs: 1000 })));
  return records.map((r) => (JSON.parse(new TextDecoder().decode(r.value!)) as { payload: string }).payload);
}

test("Sluice carries on from a Kafka Connect standalone offsets file, and Kafka Connect from Sluice's", async () => {
  const kafka = await sharedKafka();
  broker = createBroker({ bootstrapServers: [kafka.bootstrap], dataDir: dir, clientId: "journey" });
  await broker.connect();
  const connector = join(dir, "file-source.properties");
  writeFileSync(
    connector,
    `name=local-file-source\nconnector.class=FileStreamSource\ntasks.max=1\nfile=${input}\ntopic=${topic}\n`,
  );
  writeFileSync(input, lines(0, 5));

  // Kafka Connect writes worker.properties into `dir`, with offset.storage.file.filename = dir/connect.offsets;
  // plugin.path names the connect-file jar, as Kafka's quickstart does (which enables Sluice's FileStream too).
  const fileConnectors = kafkaConnectClasspath()
    .split(":")
    .find((jar) => /\/connect-file-[^/]*\.jar$/.test(jar))!;
  const start = () =>
    startKafkaConnect({
      bootstrap: kafka.bootstrap,
      dir,
      connectorFiles: [connector],
      worker: { "plugin.path": fileConnectors },
    });
  const first = await start();
  await waitFor("Kafka Connect to commit the offsets of lines 0-4", () => committedAll(), {
    timeoutMs: 60_000,
    intervalMs: 200,
  }).finally(() => first.stop());
  expect(readFileSync(offsetsFile).subarray(0, 2)).toEqual(Buffer.from([0xac, 0xed])); // Java serialization

  appendFileSync(input, lines(5, 9));
  const worker = join(dir, "worker.properties");
  const running = await sluice.start(["connect-standalone", worker, connector]);
  await waitFor("Sluice to commit the offsets of lines 5-8", () => committedAll(), {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  running.proc.kill("SIGTERM");
  await running.proc.exited;
  expect(await topicLines()).toEqual(lines(0, 9).trimEnd().split("\n"));

  appendFileSync(input, lines(9, 12));
  const again = await start();
  await waitFor("Kafka Connect to commit the offsets of lines 9-11", () => committedAll(), {
    timeoutMs: 60_000,
    intervalMs: 200,
  }).finally(() => again.stop());
  expect(await topicLines()).toEqual(lines(0, 12).trimEnd().split("\n"));
}, 300_000);

test("an offsets file Sluice cannot read stops start-up naming the file and what to do", () => {
  const worker = join(sluice.dir, "broken-worker.properties");
  const broken = join(sluice.dir, "broken.offsets");
  writeFileSync(broken, Buffer.from([0xac, 0xed, 0x00, 0x05, 0x73, 0x72, 0x00]));
  writeFileSync(worker, `offset.storage.file.filename=${broken}\nlisteners=http://127.0.0.1:0\n`);
  const { exitCode, stderr, stdout } = sluice.run(["connect-standalone", worker]);
  const output = stderr + stdout;
  expect(exitCode).not.toBe(0);
  expect(output).toContain(broken);
  expect(output).toContain("delete it to start every source connector from the beginning");
  expect(output).not.toContain("JSON Parse error");
}, 60_000);
