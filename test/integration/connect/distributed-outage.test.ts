// A distributed cluster while Kafka goes away: a broker restart makes tasks retry, not die; a longer
// outage makes the workers say so (GET /health) and stop their work; when Kafka is back the cluster
// recovers by itself, and no number is lost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConnectCluster, sequenceReport, type Status } from "../../fixtures/connect-cluster.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { waitFor } from "../../fixtures/wait.ts";

const TASKS = 2;
let kafka: KafkaCluster;
let cluster: ConnectCluster;

beforeAll(async () => {
  kafka = await startKafka();
  if (!kafka.owned)
    throw new Error("this test stops the broker: it needs the fixture's own Kafka, not KAFKA_BOOTSTRAP_SERVERS");
  cluster = new ConnectCluster({ bootstrap: kafka.bootstrap });
  await cluster.setUp(2);
}, 120_000);
afterAll(async () => {
  await cluster?.tearDown();
  await kafka?.stop();
}, 60_000);

const health = async (index: number) =>
  (await fetch(`${cluster.workers[index]!.url}/health`).then(
    (r) => r.json(),
    () => undefined,
  )) as { status: string } | undefined;

test("a broker restart and a longer outage: tasks retry, workers report it, everything resumes with nothing lost", async () => {
  const max = 30000;
  const topic = `${cluster.group}-numbers`;
  await cluster.createTopic(topic, TASKS);
  const dump = join(cluster.dir, "outage.dump");
  const create = (name: string, config: Record<string, string>) =>
    waitFor(
      `${name} created`,
      async () => (await cluster.client(0).post("/connectors", { name, config })).status === 201,
      { intervalMs: 100 },
    );
  await create("seq", {
    "connector.class": "SequenceSource",
    topic,
    "tasks.max": String(TASKS),
    "sequence.max": String(max),
    "sequence.interval.ms": "100",
  });
  await create("dump", {
    "connector.class": "test.DumpSinkConnector",
    topics: topic,
    file: dump,
    "tasks.max": String(TASKS),
  });
  await cluster.waitRunning("seq", TASKS);
  await cluster.waitRunning("dump", TASKS);
  await waitFor("numbers flowing", async () => (await cluster.readTopic(topic)).length > 500 || undefined, {
    intervalMs: 200,
  });

  // A broker restart: tasks keep RUNNING (they retry), none fails.
  await kafka.halt();
  await kafka.start();
  await waitFor("numbers flowing again", async () => {
    const before = (await cluster.readTopic(topic)).length;
    return (
      (await waitFor("more numbers", async () => (await cluster.readTopic(topic)).length > before + 200 || undefined, {
        intervalMs: 200,
      })) && true
    );
  });
  for (const name of ["seq", "dump"]) {
    const s = (await cluster.client(1).get(`/connectors/${name}/status`)).body as Status;
    // No task FAILED; a failed one is shown with its trace, which says why.
    expect(s.tasks.filter((t) => t.state === "FAILED").map((t) => `${name}-${t.id}: ${t.trace}`)).toEqual([]);
  }

  // Gone longer than the session timeout: the workers say they are out of the group.
  await kafka.kill();
  const unhealthy = await waitFor(
    "a worker to report it lost the group",
    async () => {
      const h = await health(0);
      return h?.status === "unhealthy" ? h : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(unhealthy).toMatchObject({ status: "unhealthy" });

  await kafka.start();
  await waitFor(
    "both workers healthy again",
    async () => (await health(0))?.status === "healthy" && (await health(1))?.status === "healthy",
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  const dumped = () =>
    existsSync(dump)
      ? readFileSync(dump, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { key: string; value: string })
      : [];
  await waitFor("every number delivered to the sink", () => sequenceReport(dumped(), TASKS, max).lost === 0, {
    timeoutMs: 120_000,
    intervalMs: 500,
  });
  const produced = sequenceReport(await cluster.readTopic(topic), TASKS, max);
  console.log(
    `Kafka restart + outage: lost ${produced.lost}, duplicates in Kafka ${produced.duplicates}, in the sink ${sequenceReport(dumped(), TASKS, max).duplicates}`,
  );
  expect(produced.lost).toBe(0);
}, 300_000);
