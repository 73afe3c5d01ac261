// Where a CDC snapshot's time goes, source alone: the PostgreSQL CDC source (JsonConverter with schemas)
// snapshots the `bench` table (bench/cdc-workload.ts) into Kafka on an in-process standalone worker
// with task threads, and the run prints rows/s, each thread of this process that used more than 2% of
// a core (the task's thread is "Worker"), and how busy the whole machine was (the broker and
// PostgreSQL included). A task thread well below a whole core on a machine that is not busy is waiting.
// Usage: bun bench/cdc-source-threads.ts [rows=300000]
import { readdirSync, readFileSync } from "node:fs";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { connectClient, removeConnectDir, startTestConnect } from "../test/fixtures/connect.ts";
import { sharedKafka, stopSharedKafka } from "../test/fixtures/kafka.ts";
import { cdcConnection, startPostgres } from "../test/fixtures/postgres.ts";
import { connectTo, createBenchTable } from "./cdc-workload.ts";

const rows = Number(process.argv[2] ?? 300_000);
const TICKS_PER_SECOND = 100; // USER_HZ

/** CPU ticks (user + system) of each thread of this process, by "tid name". */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    } catch {
      continue; // a thread that ended meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(`${tid} ${name}`, Number(fields[11]) + Number(fields[12]));
  }
  return out;
}

/** The machine's busy ticks (all but idle and iowait), summed over its cores. */
function machineBusyTicks(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
  return cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!;
}

const pg = await startPostgres();
const source = connectTo(pg, "postgres");
await createBenchTable(source, rows);
const worker = await startTestConnect("kafka");
const api = connectClient(worker.url);
const kafka = new KafkaBroker({ bootstrapServers: [(await sharedKafka()).bootstrap], clientId: "cdc-bench" });
await kafka.connect();
try {
  const threadsBefore = threadTicks();
  const busyBefore = machineBusyTicks();
  const start = performance.now();
  const created = await api.post("/connectors", {
    name: "source",
    config: {
      "connector.class": "PostgresCdc",
      ...cdcConnection(pg),
      "topic.prefix": "threads",
      "slot.drop.on.stop": "true",
      "table.include.list": "public.bench",
      "publication.autocreate.mode": "filtered",
    },
  });
  if (created.status !== 201) throw new Error(`connector creation failed: ${JSON.stringify(created.body)}`);
  const topic = "threads.public.bench";
  for (;;) {
    const ends = (await kafka.listTopics()).includes(topic) ? await kafka.endOffsets(topic) : [];
    if (ends.reduce((a, b) => a + b, 0) >= rows) break;
    await Bun.sleep(20); // poll interval of the measurement
  }
  const seconds = (performance.now() - start) / 1000;
  const share = (ticks: number) => `${Math.round((ticks / TICKS_PER_SECOND / seconds) * 100)}%`;
  console.log(`${rows} rows in ${seconds.toFixed(2)} s = ${Math.round(rows / seconds)} rows/s`);
  const threads = [...threadTicks()]
    .map(([thread, ticks]) => [thread, ticks - (threadsBefore.get(thread) ?? 0)] as const)
    .filter(([, ticks]) => ticks / TICKS_PER_SECOND / seconds > 0.02)
    .sort((a, b) => b[1] - a[1]);
  for (const [thread, ticks] of threads) console.log(`  thread ${thread}: ${share(ticks)} of a core`);
  console.log(
    `machine: ${share(machineBusyTicks() - busyBefore)} of a core busy (of ${navigator.hardwareConcurrency * 100}%)`,
  );
  await api.delete("/connectors/source");
} finally {
  await kafka.close();
  await worker.stop();
  removeConnectDir(worker);
  await source.end();
  await pg.stop();
  await stopSharedKafka();
}
