// The cluster the console shows, run as `dist/sluice`: three registries and three distributed workers
// on Kafka (test/fixtures/console-cluster.ts). Every registry lists the three instances with one
// leader; every worker lists the three workers, with the connectors and their tasks spread over them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { explained, openBrowser, saveScreenshot, type BrowserSession } from "../fixtures/browser.ts";
import { CLUSTER_SIZE, startConsoleCluster, type ConsoleCluster } from "../fixtures/console-cluster.ts";
import { jsonCall } from "../fixtures/http.ts";
import { waitFor } from "../fixtures/wait.ts";
import {
  noScreenshots,
  seedSubjects,
  walkConnector,
  walkLookup,
  walkReference,
  walkSubjects,
  type ConsoleUrls,
} from "./console-walk.ts";

interface ClusterView {
  leader: string | null;
  instances: { url: string; leader: boolean; eligible: boolean }[];
}
interface WorkersView {
  leader: string | null;
  workers: {
    id: string;
    url: string;
    leader: boolean;
    connectors: string[];
    tasks: { connector: string; task: number }[];
  }[];
}

const CONNECTORS = ["numbers-a", "numbers-b", "numbers-c"];
let cluster: ConsoleCluster;

beforeAll(async () => {
  cluster = await startConsoleCluster();
  const topic = `${cluster.connect.group}-numbers`;
  await cluster.connect.createTopic(topic, 2);
  for (const name of CONNECTORS) {
    // No end, 100 numbers a second per task: the charts must see records still flowing when the
    // browser opens (1000 numbers were all written before it did on a quick machine: flat, zero-height
    // lines that Playwright counts as hidden).
    const config = {
      "connector.class": "SequenceSource",
      topic,
      "tasks.max": "2",
      "sequence.max": "0",
      "sequence.interval.ms": "1000",
    };
    // Retried while the group rebalances (409), as Kafka Connect's clients do.
    await waitFor(
      `${name} created`,
      async () => (await cluster.connect.client(0).post("/connectors", { name, config })).status === 201 || undefined,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }
}, 240_000);
afterAll(() => cluster?.stop(), 60_000);

test("each registry lists the three instances and the same one leader", async () => {
  const views = await waitFor("every registry knows all three", async () => {
    const bodies = await Promise.all(
      cluster.registries.map(
        async (url) => (await jsonCall(`${url}/v1/sluice/cluster`, "GET", undefined, {})).body as ClusterView,
      ),
    );
    return bodies.every((b) => b.instances.length === CLUSTER_SIZE && b.leader !== null) ? bodies : undefined;
  });
  for (const view of views) {
    expect(view).toEqual(views[0]!);
    expect(view.instances.map((i) => i.url)).toEqual([...cluster.registries].sort());
    expect(view.instances.filter((i) => i.leader).map((i) => i.url)).toEqual([view.leader!]);
    expect(view.instances.every((i) => i.eligible)).toBe(true);
  }
});

test("each worker lists the three workers, one leading, the three connectors and six tasks spread over them", async () => {
  const views = await waitFor(
    "every worker's view of all the work assigned",
    async () => {
      const bodies = await Promise.all(
        cluster.workers.map(
          async (url) => (await jsonCall(`${url}/sluice/workers`, "GET", undefined, {})).body as WorkersView,
        ),
      );
      const assigned = (b: WorkersView) =>
        b.workers.flatMap((w) => w.tasks).length === CONNECTORS.length * 2 &&
        b.workers.flatMap((w) => w.connectors).length === CONNECTORS.length;
      return bodies.every(
        (b) => b.workers.length === CLUSTER_SIZE && assigned(b) && JSON.stringify(b) === JSON.stringify(bodies[0]),
      )
        ? bodies
        : undefined;
    },
    { timeoutMs: 60_000 },
  );
  const view = views[0]!;
  expect(view.workers.map((w) => w.url)).toEqual([...cluster.workers].sort());
  expect(view.workers.filter((w) => w.leader).map((w) => w.url)).toEqual([view.leader!]);
  expect(view.workers.flatMap((w) => w.connectors).sort()).toEqual(CONNECTORS);
  // Spread: each worker runs one connector and two tasks.
  for (const worker of view.workers) {
    expect(worker.connectors).toHaveLength(1);
    expect(worker.tasks).toHaveLength(2);
  }
});

test("the console of a registry pictures the three instances and, through its proxy, the workers, what each runs and the records flowing", async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.page();
    await explained(page, async () => {
      await page.goto(`${cluster.registries[1]}/ui/#/cluster`);
      await page.waitForFunction(
        `document.querySelectorAll("[data-instance]").length === ${CLUSTER_SIZE} && document.querySelectorAll("[data-worker]").length === ${CLUSTER_SIZE}`,
      );
      expect(await page.locator("[data-instance].leader").count()).toBe(1);
      expect(await page.locator("[data-worker].leader").count()).toBe(1);
      for (const name of CONNECTORS) await page.locator(`[data-chart='${name}'] polyline`).waitFor();
      await saveScreenshot(page, "cluster");
      await page.goto(`${cluster.registries[1]}/ui/#/connectors`);
      await page.waitForFunction(
        `document.querySelectorAll("[data-connector] .task").length === ${CONNECTORS.length * 2}`,
      );
      // Three workers: the tasks' workers differ.
      const workers = await page.locator("[data-connector] .task small").allTextContents();
      expect(new Set(workers).size).toBe(CLUSTER_SIZE);
    });
  } finally {
    await browser.close();
  }
});

describe("the console's walk on the cluster: a follower registry's console, a worker's console", () => {
  let browser: BrowserSession;
  // Registry 1 and worker 2: most likely neither leads, so writes are forwarded; each console reaches
  // the other service through its proxy (registry 1 → worker 1, worker 2 → registry 2).
  const urls = (): ConsoleUrls => ({ registry: cluster.registries[1]!, connect: cluster.workers[2]! });
  beforeAll(async () => {
    browser = await openBrowser();
    await seedSubjects(urls().registry);
  }, 60_000);
  afterAll(() => browser?.close());

  test(
    "subjects, a diff, a draft refused then registered",
    () => explained(browser, () => walkSubjects(browser, urls(), noScreenshots)),
    120_000,
  );
  test("the lookup by id", () => explained(browser, () => walkLookup(browser, urls(), noScreenshots)), 60_000);
  test(
    "a connector from the form, its chart, pause, resume, stop and offsets",
    () => explained(browser, () => walkConnector(browser, urls(), noScreenshots)),
    180_000,
  );
  test(
    "the API reference and the plugin docs",
    () => explained(browser, () => walkReference(browser, urls(), noScreenshots)),
    60_000,
  );
});
