// GET /metrics on a standalone worker over the embedded broker: connector and task states, records
// moved by source and sink tasks, record errors, offset commits and HTTP requests; GET /health as before.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encoder } from "#src/broker/broker.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { scrape, valueOf, type Sample } from "../../fixtures/prometheus.ts";
import { waitFor } from "../../fixtures/wait.ts";

const LINES = 20;
const lineCount = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
const task = (connector: string) => ({ connector, task: "0" });
const json = (payload: string) =>
  encoder.encode(JSON.stringify({ schema: { type: "string", optional: false }, payload }));

describe("connect monitoring", () => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  /** Waits until a scrape satisfies `check`, and returns that scrape. */
  const scrapeUntil = (what: string, check: (metrics: Sample[]) => boolean) =>
    waitFor(what, async () => {
      const metrics = await scrape(worker.url);
      return check(metrics) ? metrics : undefined;
    });

  beforeAll(async () => {
    worker = await startTestConnect("embedded");
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("a source → sink pipeline: states, records polled, written, read and put, offset commits", async () => {
    const input = join(worker.dir, "in.txt");
    const output = join(worker.dir, "out.txt");
    writeFileSync(input, Array.from({ length: LINES }, (_, i) => `line-${i}`).join("\n") + "\n");
    expect(
      (
        await api.post("/connectors", {
          name: "src",
          config: { "connector.class": "FileStreamSource", file: input, topic: "lines" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.post("/connectors", {
          name: "sink",
          config: { "connector.class": "FileStreamSink", file: output, topics: "lines" },
        })
      ).status,
    ).toBe(201);
    await api.waitForState("src", "RUNNING", 1);
    await api.waitForState("sink", "RUNNING", 1);
    await waitFor("every line in the sink file", () => lineCount(output) === LINES || undefined);
    // Commits run every offset.flush.interval.ms (500 ms in the fixture).
    const metrics = await scrapeUntil("offset commits of both tasks", (m) =>
      ["src", "sink"].every(
        (c) => (valueOf(m, "sluice_connect_offset_commit_duration_seconds_count", task(c)) ?? 0) >= 1,
      ),
    );
    expect(valueOf(metrics, "sluice_connect_connector_state", { connector: "src", state: "RUNNING" })).toBe(1);
    expect(valueOf(metrics, "sluice_connect_task_state", { connector: "src", task: "0", state: "RUNNING" })).toBe(1);
    expect(valueOf(metrics, "sluice_connect_task_state", { connector: "sink", task: "0", state: "RUNNING" })).toBe(1);
    expect(valueOf(metrics, "sluice_connect_source_records_polled_total", task("src"))).toBe(LINES);
    expect(valueOf(metrics, "sluice_connect_source_records_written_total", task("src"))).toBe(LINES);
    expect(valueOf(metrics, "sluice_connect_sink_records_read_total", task("sink"))).toBe(LINES);
    expect(valueOf(metrics, "sluice_connect_sink_records_put_total", task("sink"))).toBe(LINES);
    // Everything consumed: the sink's lag as of its last commit is 0.
    await scrapeUntil("the sink's lag at 0", (m) => valueOf(m, "sluice_connect_sink_lag_records", task("sink")) === 0);
    expect(
      valueOf(metrics, "sluice_http_requests_total", { method: "POST", route: "/connectors", status: "201" }),
    ).toBe(2);
    expect(
      valueOf(metrics, "sluice_http_requests_total", {
        method: "GET",
        route: "/connectors/:connector/status",
        status: "200",
      }),
    ).toBeGreaterThanOrEqual(2);
  });

  test("a paused connector shows PAUSED; a deleted one leaves no series behind", async () => {
    expect((await api.put("/connectors/sink/pause")).status).toBe(202);
    await api.waitForState("sink", "PAUSED", 1);
    let metrics = await scrape(worker.url);
    expect(valueOf(metrics, "sluice_connect_task_state", { connector: "sink", task: "0", state: "PAUSED" })).toBe(1);
    expect(
      valueOf(metrics, "sluice_connect_task_state", { connector: "sink", task: "0", state: "RUNNING" }),
    ).toBeUndefined();
    expect((await api.delete("/connectors/sink")).status).toBe(204);
    metrics = await scrape(worker.url);
    expect(metrics.filter((s) => s.labels.connector === "sink")).toEqual([]);
  });

  test("record errors are counted as tolerated or failed; a failed task shows FAILED", async () => {
    await worker.connect.broker.createTopic({ name: "mixed", partitions: 1, replicationFactor: 1 });
    await worker.connect.broker.produce("mixed", [
      { key: null, value: json("good"), partition: 0 },
      { key: null, value: encoder.encode("not json"), partition: 0 },
    ]);
    const sink = (name: string, tolerance: string) =>
      api.post("/connectors", {
        name,
        config: {
          "connector.class": "FileStreamSink",
          topics: "mixed",
          file: join(worker.dir, `${name}.txt`),
          "value.converter": "org.apache.kafka.connect.json.JsonConverter",
          "errors.tolerance": tolerance,
        },
      });
    await sink("tolerant", "all");
    await sink("strict", "none");
    const metrics = await scrapeUntil(
      "the strict task to fail",
      (m) => valueOf(m, "sluice_connect_task_state", { connector: "strict", task: "0", state: "FAILED" }) === 1,
    );
    expect(valueOf(metrics, "sluice_connect_record_errors_total", { ...task("strict"), outcome: "failed" })).toBe(1);
    await scrapeUntil(
      "the tolerated error and the good record",
      (m) =>
        valueOf(m, "sluice_connect_record_errors_total", { ...task("tolerant"), outcome: "tolerated" }) === 1 &&
        valueOf(m, "sluice_connect_sink_records_put_total", task("tolerant")) === 1,
    );
  });

  test("requests for unknown connectors are counted under the route template; /health is unchanged", async () => {
    expect((await api.get("/connectors/nope/status")).status).toBe(404);
    expect((await api.get("/no/such/path")).status).toBe(404);
    const metrics = await scrape(worker.url);
    expect(
      valueOf(metrics, "sluice_http_requests_total", {
        method: "GET",
        route: "/connectors/:connector/status",
        status: "404",
      }),
    ).toBe(1);
    expect(valueOf(metrics, "sluice_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(
      1,
    );
    expect(metrics.some((s) => s.labels.connector === "nope" || s.labels.route?.includes("nope"))).toBe(false);
    const health = await api.get("/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: "healthy",
      message: "Worker has completed startup and is ready to handle requests.",
    });
  });
});
