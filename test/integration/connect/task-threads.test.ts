// Tasks on task threads (`sluice dev --task.threads=1`: every task on the same thread): what one task's
// code does wrong fails that task alone, the REST API answers while a task's code holds its thread, and
// a source task restarted on a thread resumes after the offsets it committed. Each counting source's
// numbers are written to a file by a FileStreamSink, so the file shows what reached the topic.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient } from "../../fixtures/connect.ts";
import { startSluice, type SluiceProcess } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

let dir: string;
let sluice: SluiceProcess;
let api: ReturnType<typeof connectClient>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "sluice-task-threads-"));
  mkdirSync(join(dir, "plugins"));
  copyFileSync(
    join(import.meta.dir, "..", "..", "fixtures", "plugins", "counting-plugins.ts"),
    join(dir, "plugins", "counting-plugins.ts"),
  );
  const connectUrl = `http://127.0.0.1:${freePort()}`;
  const args = [
    "dev",
    "--registry-listeners",
    `http://127.0.0.1:${freePort()}`,
    "--connect-listeners",
    connectUrl,
    `--plugin.path=${join(dir, "plugins")}`,
    "--task.threads=1",
    "--task.shutdown.graceful.timeout.ms=500",
    "--offset.flush.interval.ms=200",
  ];
  sluice = await startSluice(args, { cwd: dir, readyUrl: `${connectUrl}/connectors` });
  api = connectClient(connectUrl);
}, 60_000);
afterEach(async () => {
  await sluice.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A counting source to `topic`, and a FileStreamSink writing the topic's numbers to `<topic>.txt`. */
async function count(topic: string, extra: Record<string, string> = {}): Promise<void> {
  const strings = { "value.converter": "org.apache.kafka.connect.storage.StringConverter" };
  expect(
    (
      await api.put(`/connectors/${topic}/config`, {
        "connector.class": "test.CountingSourceConnector",
        topic,
        count: "100000",
        ...strings,
        ...extra,
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await api.put(`/connectors/${topic}-file/config`, {
        "connector.class": "FileStreamSink",
        topics: topic,
        file: join(dir, `${topic}.txt`),
        ...strings,
      })
    ).status,
  ).toBe(201);
}

/** The numbers the sink wrote, in order. */
function numbers(topic: string): number[] {
  const file = join(dir, `${topic}.txt`);
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

const atLeast = (topic: string, n: number) =>
  waitFor(`${n} numbers from ${topic}`, async () => numbers(topic).length >= n || undefined);

async function taskStatus(name: string): Promise<{ state: string; trace?: string } | undefined> {
  const body = (await api.get(`/connectors/${name}/status`)).body as { tasks?: { state: string; trace?: string }[] };
  return body.tasks?.[0];
}

const inState = (name: string, state: string) =>
  waitFor(`${name}-0 ${state}`, async () => {
    const status = await taskStatus(name);
    return status?.state === state ? status : undefined;
  });

/** from, from + 1, … to. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("a task's code going wrong on a shared thread", () => {
  for (const [misbehave, says] of [
    ["timer", "thrown from a timer of the counting task"],
    ["exit", "a task called process.exit(7)"],
  ] as const) {
    test(`${misbehave}: that task is FAILED with its trace; the other tasks on the thread go on`, async () => {
      await count("steady", { count: "3000", pace: "5" });
      await atLeast("steady", 10);
      await count("wrong", { misbehave, after: "20" });
      expect((await inState("wrong", "FAILED")).trace).toContain(says);
      // The other source and both sinks go on: every number once, in order.
      await atLeast("steady", 3000);
      expect(numbers("steady")).toEqual(range(1, 3000));
      expect((await taskStatus("steady"))?.state).toBe("RUNNING");
      // What the failed task sent before it failed arrives, without gaps or repeats.
      await atLeast("wrong", 20);
      const sent = numbers("wrong");
      expect(sent).toEqual(range(1, sent.length));
    }, 90_000);
  }
});

test("a task whose code never yields: REST answers; stopping it ends its thread; the tasks it shared the thread with are FAILED, saying why, and resume from their offsets on restart", async () => {
  await count("steady", { pace: "20" });
  await atLeast("steady", 20);
  expect(
    (
      await api.put("/connectors/spinner/config", {
        "connector.class": "test.CountingSourceConnector",
        topic: "spinner",
        count: "100",
        misbehave: "spin",
        after: "0",
      })
    ).status,
  ).toBe(201);
  // RUNNING is reported right before its first poll, which spins: from then on the thread is held
  // (a stop request cannot reach the task), and the worker's REST API, on the main thread, answers.
  await inState("spinner", "RUNNING");
  expect((await api.get("/connectors")).body).toEqual(expect.arrayContaining(["steady", "steady-file", "spinner"]));
  expect((await api.delete("/connectors/spinner")).status).toBe(204);
  for (const name of ["steady", "steady-file"])
    expect((await inState(name, "FAILED")).trace).toContain("spinner-0 did not stop within 500 ms");
  const before = numbers("steady");
  for (const name of ["steady", "steady-file"])
    expect((await api.post(`/connectors/${name}/tasks/0/restart`)).status).toBe(204);
  await atLeast("steady", before.length + 20);
  // Nothing lost: the numbers run on without a gap (those after the last commit may come again).
  const after = numbers("steady");
  expect([...new Set(after)].sort((a, b) => a - b)).toEqual(range(1, Math.max(...after)));
}, 90_000);

test("a source task restarted on its thread again and again resumes after its committed offset: every number once", async () => {
  await count("counter", { count: "2000", pace: "10" });
  for (const n of [100, 400, 800]) {
    await atLeast("counter", n);
    expect((await api.post("/connectors/counter/tasks/0/restart")).status).toBe(204);
  }
  await atLeast("counter", 2000);
  expect(numbers("counter")).toEqual(range(1, 2000));
}, 90_000);
