// The console's mirror flows and schema exporters in a real browser, against dist/sluice: two registries
// and two distributed workers on Kafka (test/fixtures/console-cluster.ts). MirrorMaker 2's source (two
// tasks) and checkpoint connectors replicate a topic of the shared Kafka under another alias (source and
// target the same cluster, so one broker does), with a consumer group committing on the source; the
// console is opened where its worker does not run the first source task, so the page shows figures
// gathered from both workers. The registries export their schemas to a third registry, and a second
// exporter points at a registry that is not there.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { explained, openBrowser, saveScreenshot, type BrowserSession } from "../fixtures/browser.ts";
import { startConsoleCluster, type ConsoleCluster } from "../fixtures/console-cluster.ts";
import { jsonCall } from "../fixtures/http.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../fixtures/registry.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";

const RECORDS = 40;
const JSON_BODY = { "content-type": "application/json" };
let cluster: ConsoleCluster;
let destinationPlace: RegistryPlace;
let destination: TestRegistry;
let browser: BrowserSession;
let source: string;
let target: string;
let topic: string;
let group: string;
/** The console whose worker does not run source task 0. */
let consoleIndex: number;
/** The worker running source task 0 (host:port). */
let task0: string;

const call = async (url: string, method: string, body?: unknown) => {
  const reply = await jsonCall(url, method, body, JSON_BODY);
  if (reply.status >= 300) throw new Error(`${method} ${url}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
};

beforeAll(async () => {
  const bootstrap = (await sharedKafka()).bootstrap;
  // The exporters' topics are the cluster's own (other registries share this Kafka); a failed exporter is
  // not retried during the test, so its ERROR stays.
  const unique = Math.random().toString(36).slice(2, 8);
  cluster = await startConsoleCluster({
    size: 2,
    registrySettings: {
      "exporter.config.topic": `_exporter_configs-${unique}`,
      "exporter.state.topic": `_exporter_states-${unique}`,
      "exporter.retry.backoff.ms": "600000",
    },
  });
  destinationPlace = await registryPlace("embedded");
  destination = await startTestRegistry(destinationPlace);
  browser = await openBrowser();
  const suffix = cluster.connect.group.replace(/^cluster-/, "");
  source = `east${suffix}`;
  target = `west${suffix}`;
  topic = `${cluster.connect.group}-orders`;
  group = `${cluster.connect.group}-billing`;

  const broker = cluster.connect.broker!;
  await cluster.connect.createTopic(topic, 2);
  const text = (s: string) => new TextEncoder().encode(s);
  await broker.produce(
    topic,
    Array.from({ length: RECORDS }, (_, i) => ({ key: text(`k${i}`), value: text(`v${i}`), partition: i % 2 })),
  );
  // The group has read half of each partition on the source.
  await broker.commitOffsets(group, topic, [
    { partition: 0, offset: RECORDS / 4 },
    { partition: 1, offset: RECORDS / 4 },
  ]);

  const clusters = {
    "source.cluster.alias": source,
    "target.cluster.alias": target,
    "source.cluster.bootstrap.servers": bootstrap,
    "target.cluster.bootstrap.servers": bootstrap,
    "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
  };
  const connectors = {
    [`${source}-source`]: {
      ...clusters,
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      topics: topic,
      "tasks.max": "2",
      "replication.factor": "1",
      "offset-syncs.topic.replication.factor": "1",
      "sync.topic.acls.enabled": "false",
    },
    [`${source}-checkpoint`]: {
      ...clusters,
      "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
      topics: topic,
      groups: group,
      "checkpoints.topic.replication.factor": "1",
      "emit.checkpoints.interval.seconds": "1",
      "refresh.groups.interval.seconds": "1",
    },
  };
  const worker = cluster.workers[0]!;
  // Retried while the group forms (409), as Kafka Connect's clients do.
  for (const [name, config] of Object.entries(connectors)) {
    // Retried while the group forms (409), as Kafka Connect's clients do.
    const reply = await waitFor(
      `${name} created`,
      async () => {
        const r = await jsonCall(`${worker}/connectors`, "POST", { name, config }, JSON_BODY);
        return r.status === 409 ? undefined : r;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(`${reply.status} ${JSON.stringify(reply.body)}`).toStartWith("201 ");
  }

  const running = await cluster.connect.waitRunning(`${source}-source`, 2, 0, 90_000);
  task0 = running.tasks.find((t) => t.id === 0)!.worker_id;
  const workerIds = cluster.workers.map((url) => url.replace(/^https?:\/\//, ""));
  expect(workerIds).toContain(task0);
  consoleIndex = workerIds.findIndex((id) => id !== task0);

  const registry = cluster.registries[0]!;
  await call(`${registry}/subjects/${topic}-value/versions`, "POST", {
    schema: JSON.stringify({ type: "record", name: "Order", fields: [{ name: "id", type: "long" }] }),
  });
  await call(`${registry}/exporters`, "POST", {
    name: "to-backup",
    contextType: "NONE",
    subjects: [`${topic}-value`],
    config: { "schema.registry.url": destination.url },
  });
  await call(`${registry}/exporters`, "POST", {
    name: "nowhere",
    contextType: "NONE",
    subjects: ["*"],
    config: { "schema.registry.url": `http://127.0.0.1:${freePort()}` },
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await destination?.stop();
  if (destinationPlace) removePlace(destinationPlace);
  await cluster?.stop();
}, 60_000);

test("the mirror page shows the flow, its connectors, the topic's lag down to 0 over both workers' tasks and the group's last checkpoint", async () => {
  const page = await browser.page();
  await explained(page, async () => {
    await page.goto(`${cluster.registries[consoleIndex]}/ui/#/mirror`);
    const flow = page.locator(`[data-flow="${source}->${target}"]`);
    await flow.waitFor({ timeout: 60_000 });
    expect(await flow.locator("h2").textContent()).toBe(`${source} → ${target}`);
    for (const name of [`${source}-source`, `${source}-checkpoint`])
      await flow.locator(`[data-mirror-connector="${name}"] .state-running`).waitFor({ timeout: 60_000 });
    // Every record copied: both ends read from the task's gauges, nothing left behind.
    const row = flow.locator(`[data-mirror-topic="${source}.${topic}"]`);
    await page.waitForFunction(
      `document.querySelector('[data-mirror-topic="${source}.${topic}"]')?.dataset.lag === "0"`,
      undefined,
      { timeout: 90_000 },
    );
    const cells = await row.locator("td").allTextContents();
    expect(cells).toEqual([`${source}.${topic}`, topic, "2", String(RECORDS), String(RECORDS), "0"]);
    await flow.locator(`[data-checkpoint-group="${group}"]`).waitFor({ timeout: 90_000 });
    expect(await flow.getByTestId("last-checkpoint").textContent()).toMatch(/^last checkpoint .+ \(1 group\)$/);
    await saveScreenshot(page, "mirror");
  });
  // What the page read: the worker it reaches gathered the other worker's gauges with its own.
  const answer = (await call(`${cluster.workers[consoleIndex]}/sluice/metrics?gauges=sluice_mirror_`, "GET")) as {
    gauges: { name: string; labels: Record<string, string>; value: number | null; worker: string }[];
  };
  const ends = answer.gauges.filter((g) => g.name === "sluice_mirror_source_end_offset");
  expect(ends.map((g) => g.labels.partition).sort()).toEqual(["0", "1"]);
  expect(ends.map((g) => g.worker)).toContain(task0);
  expect(ends.reduce((sum, g) => sum + (g.value ?? 0), 0)).toBe(RECORDS);
}, 240_000);

test("the exporters page shows each exporter's state, offset and last error, and pauses, resets and resumes one", async () => {
  const page = await browser.page();
  await explained(page, async () => {
    await page.goto(`${cluster.registries[0]}/ui/#/exporters`);
    const running = page.locator('[data-exporter="to-backup"][data-state="RUNNING"]');
    await running.waitFor({ timeout: 60_000 });
    // It has exported past the registered schema: the offset moved on from 0.
    await page.waitForFunction(
      `Number(document.querySelector('[data-exporter="to-backup"] [data-testid="exporter-offset"]')?.textContent.replace(/,/g, "")) > 0`,
      undefined,
      { timeout: 60_000 },
    );
    expect(await running.locator("td").nth(3).textContent()).toBe(destination.url);
    await waitFor(
      "the schema on the destination",
      async () => (await jsonCall(`${destination.url}/subjects`, "GET", undefined, {})).body,
      { timeoutMs: 30_000 },
    ).then((subjects) => expect(subjects).toContain(`${topic}-value`));

    await page.locator('[data-exporter="nowhere"][data-state="ERROR"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-exporter-trace="nowhere"] pre.trace').waitFor();
    await saveScreenshot(page, "exporters");

    await running.getByRole("button", { name: "Pause" }).click();
    const paused = page.locator('[data-exporter="to-backup"][data-state="PAUSED"]');
    await paused.waitFor({ timeout: 30_000 });
    await paused.getByRole("button", { name: "Reset" }).click();
    await paused.getByRole("button", { name: "Yes, reset" }).click();
    await page.waitForFunction(
      `document.querySelector('[data-exporter="to-backup"] [data-testid="exporter-offset"]')?.textContent === "0"`,
      undefined,
      { timeout: 30_000 },
    );
    await paused.getByRole("button", { name: "Resume" }).click();
    await running.waitFor({ timeout: 30_000 });
  });
  const status = (await call(`${cluster.registries[0]}/exporters/to-backup/status`, "GET")) as { state: string };
  expect(status.state).toBe("RUNNING");
}, 240_000);
