// Sluice's own connect endpoints for the web console: GET /sluice/workers (who runs what),
// GET /sluice/metrics (the task counters the console charts, the cluster's from any worker) and
// GET /sluice/permissions — on a standalone worker on the embedded broker, and on a cluster of three
// dist/sluice workers on Kafka.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TaskTotals } from "#src/connect/runtime/metrics.ts";
import { ConnectCluster } from "../../fixtures/connect-cluster.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { jsonCall } from "../../fixtures/http.ts";
import { waitFor } from "../../fixtures/wait.ts";

/** A task's counters as /sluice/metrics answers them: with the worker that runs it. */
type Totals = TaskTotals & { worker: string };
interface Metrics {
  time: number;
  tasks: Totals[];
  unreachable: string[];
}
interface Workers {
  leader: string | null;
  workers: {
    id: string;
    url: string;
    leader: boolean;
    connectors: string[];
    tasks: { connector: string; task: number }[];
  }[];
}

const LINES = 50;

describe("a standalone worker on the embedded broker", () => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;

  beforeAll(async () => {
    worker = await startTestConnect("embedded");
    api = connectClient(worker.url);
    const input = join(worker.dir, "input.txt");
    writeFileSync(input, Array.from({ length: LINES }, (_, i) => `line ${i}`).join("\n") + "\n");
    expect(
      (
        await api.post("/connectors", {
          name: "lines-in",
          config: { "connector.class": "FileStreamSource", topic: "console-lines", file: input },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.post("/connectors", {
          name: "lines-out",
          config: {
            "connector.class": "FileStreamSink",
            topics: "console-lines",
            file: join(worker.dir, "output.txt"),
          },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("GET /sluice/workers: the one worker, leading, running both connectors and their tasks", async () => {
    const reply = await api.get("/sluice/workers");
    expect(reply.status).toBe(200);
    const workerId = worker.url.replace("http://", "");
    expect(reply.body).toEqual({
      leader: worker.url,
      workers: [
        {
          id: workerId,
          url: worker.url,
          leader: true,
          connectors: ["lines-in", "lines-out"],
          tasks: [
            { connector: "lines-in", task: 0 },
            { connector: "lines-out", task: 0 },
          ],
        },
      ],
    });
  });

  test("GET /sluice/metrics: the source's polled and written, the sink's read and put, and its lag down to 0", async () => {
    const metrics = await waitFor("every line through the source and the sink, the sink's lag committed", async () => {
      const reply = (await api.get("/sluice/metrics")).body as Metrics;
      const [source, sink] = ["lines-in", "lines-out"].map((c) => reply.tasks.find((t) => t.connector === c));
      return source?.written === LINES && sink?.put === LINES && sink.lag === 0 ? reply : undefined;
    });
    const workerId = worker.url.replace("http://", "");
    expect(metrics.unreachable).toEqual([]);
    expect(metrics.tasks).toEqual([
      {
        connector: "lines-in",
        task: 0,
        worker: workerId,
        polled: LINES,
        written: LINES,
        read: 0,
        put: 0,
        errors: 0,
        lag: null,
      },
      {
        connector: "lines-out",
        task: 0,
        worker: workerId,
        polled: 0,
        written: 0,
        read: LINES,
        put: LINES,
        errors: 0,
        lag: 0,
      },
    ]);
    const later = (await api.get("/sluice/metrics")).body as Metrics;
    expect(later.time).toBeGreaterThanOrEqual(metrics.time);
  });

  test("a deleted connector's tasks leave the lists", async () => {
    expect((await api.delete("/connectors/lines-out")).status).toBe(204);
    const workers = (await api.get("/sluice/workers")).body as Workers;
    expect(workers.workers[0]!.connectors).toEqual(["lines-in"]);
    expect(((await api.get("/sluice/metrics")).body as Metrics).tasks.map((t) => t.connector)).toEqual(["lines-in"]);
  });

  test("GET /sluice/permissions without authentication: no user, nothing read-only", async () => {
    expect((await api.get("/sluice/permissions")).body).toEqual({ user: null, readOnly: false, config: null });
  });
});

describe("GET /sluice/permissions with Basic authentication", () => {
  let worker: TestConnect;
  const basic = (user: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${user}-Secret-1`).toString("base64")}`,
  });
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-connect-"));
    writeFileSync(join(dir, "users.properties"), "operator=operator-Secret-1\nviewer=viewer-Secret-1\n");
    worker = await startTestConnect(
      "embedded",
      {
        "rest.extension.classes": "BasicAuthSecurityRestExtension",
        "rest.basic.auth.users.file": join(dir, "users.properties"),
        "rest.basic.auth.read.only.users": "viewer",
      },
      dir,
    );
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("names the admitted user; 401 with the challenge otherwise", async () => {
    expect(await jsonCall(`${worker.url}/sluice/permissions`, "GET", undefined, basic("operator"))).toMatchObject({
      status: 200,
      body: { user: "operator", readOnly: false, config: null },
    });
    const refused = await fetch(`${worker.url}/sluice/permissions`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="KafkaConnect"');
  });

  test("a user of rest.basic.auth.read.only.users reads, is told it is read-only, and is refused writes", async () => {
    expect(await jsonCall(`${worker.url}/sluice/permissions`, "GET", undefined, basic("viewer"))).toMatchObject({
      status: 200,
      body: { user: "viewer", readOnly: true, config: null },
    });
    expect((await jsonCall(`${worker.url}/connectors`, "GET", undefined, basic("viewer"))).body).toEqual([]);
    const config = {
      name: "lines",
      config: { "connector.class": "FileStreamSource", topic: "lines", file: join(worker.dir, "none.txt") },
    };
    const refused = await jsonCall(`${worker.url}/connectors`, "POST", config, {
      ...basic("viewer"),
      "content-type": "application/json",
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { error_code: 403, message: "User viewer may only read (rest.basic.auth.read.only.users)." },
    });
    expect(
      (
        await jsonCall(`${worker.url}/connectors`, "POST", config, {
          ...basic("operator"),
          "content-type": "application/json",
        })
      ).status,
    ).toBe(201);
  });

  test("a read-only user missing from the users file fails the start, naming the setting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-connect-"));
    writeFileSync(join(dir, "users.properties"), "operator=operator-Secret-1\n");
    const start = startTestConnect(
      "embedded",
      {
        "rest.extension.classes": "BasicAuthSecurityRestExtension",
        "rest.basic.auth.users.file": join(dir, "users.properties"),
        "rest.basic.auth.read.only.users": "viewr",
      },
      dir,
    );
    await expect(start).rejects.toThrow("rest.basic.auth.read.only.users");
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("a cluster of three dist/sluice workers on Kafka", () => {
  const TASKS = 6;
  const cluster = new ConnectCluster();
  beforeAll(async () => {
    await cluster.setUp(3);
    const topic = `${cluster.group}-numbers`;
    await cluster.createTopic(topic, TASKS);
    const config = {
      "connector.class": "SequenceSource",
      topic,
      "tasks.max": String(TASKS),
      "sequence.max": "1000000",
      "sequence.interval.ms": "100",
    };
    // Retried while the group rebalances (409), as Kafka Connect's clients do.
    await waitFor(
      "the connector created",
      async () =>
        (await cluster.client(0).post("/connectors", { name: "numbers", config })).status === 201 || undefined,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }, 180_000);
  afterAll(() => cluster.tearDown(), 60_000);

  test("GET /sluice/workers: every worker shows the three, one leader, and the tasks spread two by two", async () => {
    const urls = cluster.workers.map((w) => w.url).sort();
    const views = await waitFor(
      "each worker's view of all three, the six tasks assigned",
      async () => {
        const bodies = await Promise.all(
          cluster.workers.map(async (_, i) => (await cluster.client(i).get("/sluice/workers")).body as Workers),
        );
        const settled = bodies.every(
          (b) =>
            b.workers.length === 3 &&
            b.workers.every((w) => w.tasks.length === 2) &&
            JSON.stringify(b) === JSON.stringify(bodies[0]),
        );
        return settled ? bodies : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const view = views[0]!;
    expect(view.workers.map((w) => w.url)).toEqual(urls);
    expect(view.workers.filter((w) => w.leader).map((w) => w.url)).toEqual([view.leader!]);
    expect(cluster.workers[cluster.leader()]!.url).toBe(view.leader!);
    expect(view.workers.flatMap((w) => w.connectors)).toEqual(["numbers"]);
    expect(view.workers.flatMap((w) => w.tasks.map((t) => t.task)).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(view.workers.map((w) => w.id)).toEqual(urls.map((u) => u.replace("http://", "")));
  });

  test("GET /sluice/metrics from any worker: every task's counters, each from the worker running it", async () => {
    const workers = ((await cluster.client(1).get("/sluice/workers")).body as Workers).workers;
    const runs = new Map(workers.flatMap((w) => w.tasks.map((t) => [t.task, w.id] as const)));
    for (let i = 0; i < 3; i++) {
      const metrics = await waitFor(`worker ${i}: every task has written records`, async () => {
        const body = (await cluster.client(i).get("/sluice/metrics")).body as Metrics;
        return body.tasks.length === TASKS && body.tasks.every((t) => t.written > 0) ? body : undefined;
      });
      expect(metrics.unreachable).toEqual([]);
      expect(metrics.tasks.map((t) => [t.task, t.worker])).toEqual([...runs].sort(([a], [b]) => a - b));
      for (const t of metrics.tasks)
        expect(t).toMatchObject({ connector: "numbers", read: 0, put: 0, errors: 0, lag: null });
    }
  });
});
