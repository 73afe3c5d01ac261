// Exactly-once sources (KIP-618) under crashes, the same scenarios on Apache Kafka Connect 4.1.1
// (ConnectDistributed, Maven jars) and on dist/sluice: three distributed workers on the shared Kafka with
// exactly.once.source.support=enabled run a FileStreamSource (exactly.once.support=required) on a file
// appended to while the test works.
// - The bounce: the task's worker is killed (-9) five times, each time once the topic has grown by a random
//   number of records (mid-transaction or not), and restarted on its port; Python's confluent-kafka then
//   reads the topic read_committed: every line once, in the file's order.
// - The zombie: the task's worker is paused (SIGSTOP) until the task runs on another worker, then resumed:
//   its producer is fenced and its log says so (Sluice's names the transactional.id, Kafka Connect's the
//   task); read_committed again sees every line once.
// - The CDC bounce: the PostgreSQL source (Debezium's connector in Kafka Connect, Sluice's built-in one)
//   under small transactions of inserts, updates and deletes, its worker killed (-9) five times: every
//   change once, in commit order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Admin, FetchIsolationLevels, ListOffsetTimestamps } from "@platformatic/kafka";
import postgres from "postgres";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { ConnectCluster, type Status } from "../fixtures/connect-cluster.ts";
import { connectClient } from "../fixtures/connect.ts";
import { debeziumClasspath } from "../fixtures/debezium.ts";
import { startKafkaConnect, type KafkaConnect } from "../fixtures/kafka-connect.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../fixtures/postgres.ts";
import { interopPython } from "../fixtures/python.ts";
import { waitFor } from "../fixtures/wait.ts";

const STRING = "org.apache.kafka.connect.storage.StringConverter";
const JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";
/** Lines in the file at least; more are appended while the kills go on. */
const LINES = 30_000;
const KILLS = 5;
/** The file grows by this many lines every 100 ms while the workers are killed or paused. */
const APPEND_PER_TICK = 25;
/** Worker settings of both sides: exactly-once sources, and a dead worker's tasks moved on within seconds. */
const WORKER = {
  "exactly.once.source.support": "enabled",
  "session.timeout.ms": "6000",
  "heartbeat.interval.ms": "1000",
  "scheduled.rebalance.max.delay.ms": "0",
  "offset.storage.partitions": "5",
  "key.converter": STRING,
  "value.converter": STRING,
};

/** Three distributed workers, either Kafka Connect's or Sluice's, as the scenarios drive them. */
interface Workers {
  readonly label: string;
  /** The group.id, the first part of a task's transactional.id. */
  readonly group: string;
  url(index: number): string;
  /** The index of the worker with this REST worker id (host:port). */
  indexOf(workerId: string): number;
  /** kill -9. */
  crash(index: number): Promise<void>;
  /** The same worker started again on its port (so with the same worker id). */
  restart(index: number): Promise<void>;
  signal(index: number, signal: "SIGSTOP" | "SIGCONT"): void;
  /** The log of the worker's current process. */
  log(index: number): string;
  /**
   * Pauses worker `index` (SIGSTOP) while its task of `connector` holds records of a transaction it has
   * not committed, so that it has writes to be fenced when it resumes.
   */
  pauseMidTransaction(index: number, connector: string, topic: string): Promise<unknown>;
}

let bootstrap = "";
let broker: KafkaBroker;
let admin: Admin;
let pg: PostgresServer;
const dir = mkdtempSync(join(tmpdir(), "sluice-eos-bounce-"));

beforeAll(async () => {
  bootstrap = (await sharedKafka()).bootstrap;
  broker = new KafkaBroker({ bootstrapServers: [bootstrap], clientId: "eos-bounce-test" });
  await broker.connect();
  admin = new Admin({ clientId: "eos-bounce-test-admin", bootstrapBrokers: [bootstrap] });
  pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await broker?.close();
  await admin?.close();
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A file of numbered lines that grows on a timer until told to finish, and then holds at least LINES. */
function growingFile(name: string) {
  const file = join(dir, `${name}.txt`);
  const lines: string[] = [];
  const append = (count: number) => {
    const next = Array.from({ length: count }, (_, i) => `${name}-${String(lines.length + i).padStart(6, "0")}`);
    appendFileSync(file, next.join("\n") + "\n");
    lines.push(...next);
  };
  writeFileSync(file, "");
  append(LINES / 3);
  // A load generator, not synchronisation: new lines keep coming while workers die.
  const timer = setInterval(() => append(APPEND_PER_TICK), 100);
  return {
    file,
    lines,
    /** Stops the timer and appends the rest (at least one more batch, read after the last kill). */
    finish() {
      clearInterval(timer);
      append(Math.max(LINES - lines.length, 1_000));
    },
  };
}

/** The source's status through any live worker, once it has one task with a worker id. */
async function taskStatus(workers: Workers, connector: string, via: number[]): Promise<Status | undefined> {
  for (const index of via) {
    const s = (
      await connectClient(workers.url(index))
        .get(`/connectors/${connector}/status`)
        .catch(() => undefined)
    )?.body as Status | undefined;
    if (s?.tasks?.length === 1) return s;
  }
  return undefined;
}

/** The connector's committed source offset (of its first source partition) as JSON, "" before it has one. */
async function committedOffset(workers: Workers, connector: string, via: number): Promise<string> {
  const r = await connectClient(workers.url(via)).get(`/connectors/${connector}/offsets`);
  const body = r.body as { offsets?: { offset: unknown }[] } | undefined;
  const offset = body?.offsets?.[0]?.offset;
  return offset === undefined ? "" : JSON.stringify(offset);
}

/** The FileStream source's committed file position, 0 before it has one. */
async function committedPosition(workers: Workers, connector: string, via: number): Promise<number> {
  const offset = await committedOffset(workers, connector, via);
  return offset === "" ? 0 : ((JSON.parse(offset) as { position?: number }).position ?? 0);
}

/** The end of what read_committed readers see: the last stable offset. */
async function highWatermark(topic: string): Promise<number> {
  return (await broker.endOffsets(topic))[0] ?? 0;
}

/** Records a Sluice worker's task of `connector` polled and has not committed yet, by its metrics. */
async function uncommittedRecords(url: string, connector: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sample = (name: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(`connector="${connector}"`));
    return Number(line?.split(" ").at(-1) ?? 0);
  };
  return (
    sample("sluice_connect_source_records_polled_total") - sample("sluice_connect_source_transaction_size_records_sum")
  );
}

/** Whether the topic holds records of a transaction still open: its log ends past its last stable offset. */
async function openTransaction(topic: string): Promise<boolean> {
  const end = async (isolationLevel: (typeof FetchIsolationLevels)[keyof typeof FetchIsolationLevels]) => {
    const [listed] = await admin.listOffsets({
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: ListOffsetTimestamps.LATEST }] }],
      isolationLevel,
    });
    return Number(listed?.partitions[0]?.offset ?? 0);
  };
  return (await end(FetchIsolationLevels.READ_UNCOMMITTED)) > (await end(FetchIsolationLevels.READ_COMMITTED));
}

/** The FileStream source of the file, exactly once. */
const fileSource = (file: string, topic: string) => ({
  "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
  file,
  topic,
  "tasks.max": "1",
  "exactly.once.support": "required",
});

/** Creates the topic (one partition, so that its order is the source's) and the connector. */
async function createSource(workers: Workers, connector: string, config: Record<string, string>, topic: string) {
  await broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
  // Retried while the group rebalances (409) or the leader is not known yet.
  await waitFor(
    `${workers.label}: ${connector} created`,
    async () => {
      const created = await connectClient(workers.url(0)).post("/connectors", { name: connector, config });
      // A refusal is no rebalance: the timeout's message shows it.
      if (created.status === 400) throw new Error(`refused: ${JSON.stringify(created.body)}`);
      return created.status === 201;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/**
 * Every record of the topic's partition 0 as Python's confluent-kafka reads it, read_committed or not: up
 * to the end of the partition (its last stable offset when read_committed), and once `expected` are read,
 * to a pause of 5 s at most (so a duplicate after them is seen too).
 */
async function readTopic(
  topic: string,
  isolation: "read_committed" | "read_uncommitted",
  expected = 0,
): Promise<string[]> {
  const script = `
import json, sys, time
from confluent_kafka import Consumer, KafkaError, TopicPartition, OFFSET_BEGINNING
bootstrap, topic, isolation, expected = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = Consumer({"bootstrap.servers": bootstrap, "group.id": "eos-bounce-reader", "enable.auto.commit": False,
              "isolation.level": isolation, "enable.partition.eof": True})
c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
values = []
# consume() waits for all of num_messages or its timeout: short calls, and a deadline of their own.
idle_since = time.monotonic()
while True:
    batch = c.consume(num_messages=10000, timeout=0.2)
    if not batch:
        idle = time.monotonic() - idle_since
        if len(values) >= expected and idle > 5:
            break
        if idle > 60:
            sys.exit(f"{len(values)} records, and no more within 60 s")
        continue
    idle_since = time.monotonic()
    eof = False
    for m in batch:
        if m.error():
            if m.error().code() != KafkaError._PARTITION_EOF:
                sys.exit(str(m.error()))
            eof = True
        else:
            values.append(m.value().decode())
    if eof and len(values) >= expected:
        break
c.close()
print(json.dumps(values))
`;
  const proc = spawn([interopPython(), "-c", script, bootstrap, topic, isolation, String(expected)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`the Python reader failed (exit ${code}): ${err.slice(-2000)}`);
  return JSON.parse(out) as string[];
}

/** The committed lines once every line of the file is committed (its source offset at the file's end). */
async function waitAllCommitted(workers: Workers, connector: string, file: string, topic: string, expected: number) {
  const size = statSync(file).size;
  await waitFor(
    `${workers.label}: ${connector}'s offset at the end of the file (${size} bytes)`,
    async () => (await committedPosition(workers, connector, 0)) === size,
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  // Committed then, so there to read at once; the reader waits for stragglers all the same.
  return readTopic(topic, "read_committed", expected);
}

/** Duplicates and lines out of place in what was read, against the file's lines. */
function compare(read: string[], lines: string[]) {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const value of read) {
    if (seen.has(value)) duplicates++;
    seen.add(value);
  }
  return { read: read.length, lines: lines.length, duplicates, missing: lines.filter((l) => !seen.has(l)).length };
}

const random = (low: number, high: number) => low + Math.floor(Math.random() * (high - low));

/**
 * Kills the connector's task's worker (-9) KILLS times, each time once the topic has grown by a random
 * number of records within `gap` (mid-transaction or not), and starts it again on its port while the task
 * moves on; returns once every worker is up again.
 */
async function killTaskWorkers(
  workers: Workers,
  connector: string,
  topic: string,
  gap: [number, number],
  started: number,
): Promise<void> {
  // Workers restarting in the background (their index); the others answer REST calls.
  const restarting = new Map<number, Promise<void>>();
  const live = () => [0, 1, 2].filter((i) => !restarting.has(i));
  try {
    for (let kill = 1; kill <= KILLS; kill++) {
      // One worker at least stays up through the next kill: the group, and the task, carry on.
      while (restarting.size >= 2) await Promise.race(restarting.values());
      // The task runs (again), on a live worker or on the one restarted: its committed offset moves on.
      const before = await committedOffset(workers, connector, live()[0]!);
      await waitFor(
        `${workers.label}: ${connector}'s task committing before kill ${kill}`,
        async () => (await committedOffset(workers, connector, live()[0]!)) !== before,
        { timeoutMs: 90_000, intervalMs: 200 },
      );
      const status = await waitFor(`${workers.label}: ${connector}'s task's worker`, async () => {
        const s = await taskStatus(workers, connector, live());
        return s?.tasks[0]?.state === "RUNNING" && live().includes(workers.indexOf(s.tasks[0].worker_id))
          ? s
          : undefined;
      });
      const victim = workers.indexOf(status.tasks[0]!.worker_id);
      const target = (await highWatermark(topic)) + random(...gap);
      await waitFor(
        `${workers.label}: ${topic} past offset ${target}`,
        async () => (await highWatermark(topic)) >= target,
        { timeoutMs: 60_000, intervalMs: 20 },
      );
      await workers.crash(victim);
      console.log(
        `${workers.label}: ${connector}: kill ${kill}: worker ${victim} (${status.tasks[0]!.worker_id}) at offset ${await highWatermark(topic)}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      // Started again while the task moves on to another worker (the next kill may then hit that one).
      restarting.set(
        victim,
        workers.restart(victim).finally(() => restarting.delete(victim)),
      );
    }
  } finally {
    await Promise.allSettled(restarting.values());
  }
  console.log(`${workers.label}: ${connector}: all workers up again, ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function bounce(workers: Workers): Promise<void> {
  const started = Date.now();
  const connector = "bounced";
  const topic = `${workers.group}-bounced`;
  const input = growingFile(`${workers.label}-bounced`);
  try {
    await createSource(workers, connector, fileSource(input.file, topic), topic);
    await killTaskWorkers(workers, connector, topic, [50, 1_500], started);
    input.finish();
    const committed = await waitAllCommitted(workers, connector, input.file, topic, input.lines.length);
    const raw = await readTopic(topic, "read_uncommitted");
    console.log(
      `${workers.label}: bounce: ${input.lines.length} lines, ${committed.length} committed, ${raw.length - committed.length} records of aborted transactions in the log; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(compare(committed, input.lines)).toEqual({
      read: input.lines.length,
      lines: input.lines.length,
      duplicates: 0,
      missing: 0,
    });
    expect(committed).toEqual(input.lines);
  } finally {
    input.finish();
  }
}

/** One change as the CDC workload made it: `seq` is the row's value after it (before it, for a delete). */
interface Change {
  id: number;
  op: "c" | "u" | "d";
  seq: number;
}
const changeKey = (c: Change) => `${c.op}:${c.id}:${c.seq}`;

/**
 * Small transactions of inserts, updates and deletes over a few keys of the table (one in twenty larger
 * than the task's batches, so that Kafka transactions also end inside one), one after another on one
 * connection, until stopped: the changes in commit order, as committed.
 */
function workload(table: string) {
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  const changes: Change[] = [];
  const rows = new Map<number, number>();
  let seq = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const made: Change[] = [];
      const after = new Map(rows);
      await sql.begin(async (tx) => {
        const size = Math.random() < 0.05 ? random(60, 120) : random(1, 4);
        for (let n = size; n > 0; n--) {
          const id = random(1, 21);
          const current = after.get(id);
          if (current === undefined) {
            await tx`INSERT INTO ${tx(table)} (id, seq) VALUES (${id}, ${++seq})`;
            made.push({ id, op: "c", seq });
            after.set(id, seq);
          } else if (Math.random() < 0.7) {
            await tx`UPDATE ${tx(table)} SET seq = ${++seq} WHERE id = ${id}`;
            made.push({ id, op: "u", seq });
            after.set(id, seq);
          } else {
            await tx`DELETE FROM ${tx(table)} WHERE id = ${id}`;
            made.push({ id, op: "d", seq: current });
            after.delete(id);
          }
        }
      });
      changes.push(...made);
      rows.clear();
      for (const [k, v] of after) rows.set(k, v);
      await Bun.sleep(10); // pacing of the workload (under a hundred transactions a second), not synchronisation
    }
  })();
  return {
    changes,
    async stop() {
      stopped = true;
      await running;
      await sql.end();
    },
  };
}

/** A change event (JsonConverter without schemas) as the workload's change. */
function changeOf(value: string): Change {
  const event = JSON.parse(value) as {
    op: Change["op"];
    before: { id: number; seq: number } | null;
    after: { id: number; seq: number } | null;
  };
  const row = event.op === "d" ? event.before! : event.after!;
  return { id: row.id, op: event.op, seq: row.seq };
}

/**
 * The PostgreSQL source (Debezium's PostgresConnector class; Sluice's built-in one answers to it) with
 * exactly.once.support=required, on a table of its own, while the workload runs: the task's worker is
 * killed (-9) five times; read_committed then sees every change once, in commit order.
 */
async function cdcBounce(workers: Workers): Promise<void> {
  const started = Date.now();
  const connector = `${workers.label.replace("-", "_")}_cdc`;
  const table = `${connector}_items`;
  const topic = `${connector}.public.${table}`;
  pg.psql(`CREATE TABLE ${table} (id int PRIMARY KEY, seq int NOT NULL)`);
  // The whole old row in a delete's before (its seq identifies the event).
  pg.psql(`ALTER TABLE ${table} REPLICA IDENTITY FULL`);
  await createSource(
    workers,
    connector,
    {
      "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      ...cdcConnection(pg),
      "topic.prefix": connector,
      "plugin.name": "pgoutput",
      "slot.name": connector,
      "publication.name": `${connector}_pub`,
      "publication.autocreate.mode": "filtered",
      "table.include.list": `public.${table}`,
      "snapshot.mode": "no_data",
      "tombstones.on.delete": "false",
      // Polls (each one Kafka transaction) smaller than the larger database transactions: a restarted
      // task resumes inside a database transaction too, skipping the changes committed before.
      "max.batch.size": "50",
      "exactly.once.support": "required",
      "key.converter": JSON_CONVERTER,
      "key.converter.schemas.enable": "false",
      "value.converter": JSON_CONVERTER,
      "value.converter.schemas.enable": "false",
    },
    topic,
  );
  // The slot exists once the task streams: changes from here on are captured.
  await waitFor(
    `${workers.label}: the replication slot ${connector}`,
    () => pg.psql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${connector}'`) === "1",
  );
  const work = workload(table);
  try {
    await killTaskWorkers(workers, connector, topic, [20, 400], started);
  } finally {
    await work.stop();
  }
  const expected = work.changes;
  const seen = (await readTopic(topic, "read_committed", expected.length)).map(changeOf);
  const raw = await readTopic(topic, "read_uncommitted");
  const counts = new Map<string, number>();
  for (const c of seen) counts.set(changeKey(c), (counts.get(changeKey(c)) ?? 0) + 1);
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  const lost = expected.filter((c) => !counts.has(changeKey(c))).length;
  console.log(
    `${workers.label}: CDC bounce: ${expected.length} changes, ${seen.length} committed (${lost} lost, ${duplicates} duplicated), ${raw.length - seen.length} records of aborted transactions in the log; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
  // One partition, one task: the whole stream in commit order.
  expect(seen.map(changeKey)).toEqual(expected.map(changeKey));
}

async function zombie(workers: Workers, fencedLog: (log: string, transactionalId: string) => boolean) {
  const started = Date.now();
  const connector = "zombie";
  const topic = `${workers.group}-zombie`;
  const input = growingFile(`${workers.label}-zombie`);
  const all = [0, 1, 2];
  try {
    // Transactions of a few seconds: the zombie is paused while one holds records it has not committed,
    // so that it has writes to be fenced when it resumes, whether its task or its herder acts first.
    const config = {
      ...fileSource(input.file, topic),
      "transaction.boundary": "interval",
      "transaction.boundary.interval.ms": "3000",
    };
    await createSource(workers, connector, config, topic);
    await waitFor(
      `${workers.label}: the zombie source committing`,
      async () => (await committedPosition(workers, connector, 0)) > 0,
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    const status = await waitFor(`${workers.label}: the task's worker`, async () => {
      const s = await taskStatus(workers, connector, all);
      return s?.tasks[0]?.state === "RUNNING" ? s : undefined;
    });
    const paused = workers.indexOf(status.tasks[0]!.worker_id);
    const others = all.filter((i) => i !== paused);
    await workers.pauseMidTransaction(paused, connector, topic);
    try {
      // Once the paused worker's session expires, the task starts on another worker and commits there.
      await waitFor(
        `${workers.label}: the task RUNNING on a worker other than ${paused}`,
        async () => {
          const s = await taskStatus(workers, connector, others);
          return s?.tasks[0]?.state === "RUNNING" && workers.indexOf(s.tasks[0].worker_id) !== paused;
        },
        { timeoutMs: 90_000, intervalMs: 200 },
      );
      const moved = await committedPosition(workers, connector, others[0]!);
      await waitFor(
        `${workers.label}: the moved task committing`,
        async () => (await committedPosition(workers, connector, others[0]!)) > moved,
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    } finally {
      workers.signal(paused, "SIGCONT");
    }
    const transactionalId = `${workers.group}-${connector}-0`;
    await waitFor(
      `${workers.label}: the resumed worker ${paused} logging that ${transactionalId} was fenced`,
      () => fencedLog(workers.log(paused), transactionalId),
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nits log ends:\n${workers.log(paused).slice(-6_000)}`);
    });
    input.finish();
    const committed = await waitAllCommitted(workers, connector, input.file, topic, input.lines.length);
    console.log(
      `${workers.label}: zombie: ${input.lines.length} lines, ${committed.length} committed; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(committed).toEqual(input.lines);
  } finally {
    input.finish();
  }
}

describe("Apache Kafka Connect 4.1.1, three distributed workers", () => {
  const group = `kc-eos-${Math.random().toString(36).slice(2, 8)}`;
  const connects: KafkaConnect[] = [];
  const options = (index: number, port?: number) => ({
    bootstrap,
    distributed: true,
    dir: join(dir, `kafka-connect-${index}`),
    port,
    // C1 only: a worker (re)starts about a quarter sooner on a busy machine, and needs no peak speed here.
    jvmOptions: ["-XX:TieredStopAtLevel=1"],
    extraClasspath: debeziumClasspath(),
    worker: {
      "group.id": group,
      "config.storage.topic": `${group}-configs`,
      "offset.storage.topic": `${group}-offsets`,
      "status.storage.topic": `${group}-status`,
      "config.storage.replication.factor": "1",
      "offset.storage.replication.factor": "1",
      "status.storage.replication.factor": "1",
      ...WORKER,
    },
    timeoutMs: 180_000,
  });
  const workers: Workers = {
    label: "kafka-connect",
    group,
    url: (i) => connects[i]!.url,
    indexOf: (id) => connects.findIndex((c) => id === `127.0.0.1:${c.port}`),
    crash: (i) => connects[i]!.kill(),
    async restart(i) {
      connects[i] = await startKafkaConnect(options(i, connects[i]!.port));
    },
    signal: (i, sig) => connects[i]!.signal(sig),
    log: (i) => connects[i]!.log(),
    // Kafka Connect's producer sends as the task polls: paused, then asked whether a transaction is open.
    pauseMidTransaction: (i, _connector, topic) =>
      waitFor(`kafka-connect: worker ${i} paused with a transaction open`, async () => {
        connects[i]!.signal("SIGSTOP");
        if (await openTransaction(topic)) return true;
        connects[i]!.signal("SIGCONT");
        return false;
      }),
  };

  beforeAll(async () => {
    const started = Date.now();
    for (const i of [0, 1, 2]) mkdirSync(join(dir, `kafka-connect-${i}`));
    connects.push(...(await Promise.all([0, 1, 2].map((i) => startKafkaConnect(options(i))))));
    console.log(`kafka-connect: three workers up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(connects.map((c) => c.stop()));
  });

  test("kill -9 of the task's worker five times: read_committed sees every line once, in order", async () => {
    await bounce(workers);
  }, 480_000);

  test("a paused worker's task moves on; resumed, its producer is fenced and nothing it writes is committed", async () => {
    // Kafka Connect names the task, not the transactional.id: its producer's old epoch was refused.
    await zombie(workers, (log) =>
      log
        .split("\n")
        .some(
          (line, i, lines) =>
            line.includes("{id=zombie-0}") && /InvalidProducerEpoch|ProducerFenced/.test(lines[i + 1] ?? ""),
        ),
    );
  }, 240_000);

  test("Debezium's PostgreSQL source: kill -9 of the task's worker five times under inserts, updates and deletes; every change once, in order", async () => {
    await cdcBounce(workers);
  }, 480_000);
});

describe("Sluice, three distributed dist/sluice workers", () => {
  const cluster = new ConnectCluster({ settings: WORKER });
  const workers: Workers = {
    label: "sluice",
    group: cluster.group,
    url: (i) => cluster.workers[i]!.url,
    indexOf: (id) => cluster.workers.findIndex((w) => w.workerId === id),
    crash: (i) => cluster.kill(i, "SIGKILL"),
    restart: async (i) => void (await cluster.start(i)),
    signal: (i, sig) => cluster.signal(i, sig),
    log: (i) => cluster.logOf(i),
    // Sluice's producer sends a transaction's records at its commit: the worker's metrics say what its
    // task polled and has not committed. Paused once they do; a commit that slipped in between moved the
    // topic's last stable offset, and the worker goes on until the next try.
    pauseMidTransaction: (i, connector, topic) =>
      waitFor(`sluice: worker ${i} paused with a transaction open`, async () => {
        const stable = await highWatermark(topic);
        if ((await uncommittedRecords(cluster.workers[i]!.url, connector)) === 0) return false;
        cluster.signal(i, "SIGSTOP");
        if ((await highWatermark(topic)) === stable) return true;
        cluster.signal(i, "SIGCONT");
        return false;
      }),
  };

  beforeAll(() => cluster.setUp(3), 120_000);
  afterAll(() => cluster.tearDown());

  test("kill -9 of the task's worker five times: read_committed sees every line once, in order", async () => {
    await bounce(workers);
  }, 480_000);

  test("a paused worker's task moves on; resumed, its producer is fenced (its log says so) and nothing it writes is committed", async () => {
    await zombie(workers, (log, transactionalId) =>
      log.split("\n").some((line) => line.includes("fenced") && line.includes(transactionalId)),
    );
  }, 240_000);

  test("the PostgreSQL source: kill -9 of the task's worker five times under inserts, updates and deletes; every change once, in order", async () => {
    await cdcBounce(workers);
  }, 480_000);
});
