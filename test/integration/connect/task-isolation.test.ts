// One task's CPU-heavy work does not stall the process (`sluice dev`, embedded broker): a catastrophic
// regex in a transform leaves both REST APIs and the other tasks running, and fails only its record
// (through errors.tolerance) once it exceeds regex.match.timeout.ms; a connector's thousand task
// starts do not hold off either API, and tasks.max is bounded.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient } from "../../fixtures/connect.ts";
import { install, type Install } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

let installed: Install;
let dir: string;

beforeAll(() => {
  installed = install("sluice-isolation-");
  ({ dir } = installed);
}, 180_000);
afterAll(() => installed.remove());

interface Dev {
  registry: string;
  connect: ReturnType<typeof connectClient>;
  work: string;
  stop(): Promise<void>;
}

async function startDev(name: string, env: Record<string, string> = {}): Promise<Dev> {
  const work = join(dir, name);
  mkdirSync(work, { recursive: true });
  const registry = `http://127.0.0.1:${freePort()}`;
  const connectUrl = `http://127.0.0.1:${freePort()}`;
  const sluice = await installed.serve(
    ["dev", "--data-dir", join(work, "data"), "--registry-listeners", registry, "--connect-listeners", connectUrl],
    {
      cwd: work,
      readyUrl: [`${registry}/subjects`, `${connectUrl}/connectors`],
      env: { SLUICE_LOG_LEVEL: "info", ...env },
      log: join(work, "sluice.log"),
    },
  );
  return {
    registry,
    connect: connectClient(connectUrl),
    work,
    stop: () => sluice.stop(),
  };
}

/** A topic name on which `(a+)+` backtracks for hours: the run of a's, then a character that fails the match. */
const CATASTROPHIC_TOPIC = `${"a".repeat(60)}-`;
const catastrophicRouter = {
  transforms: "route",
  "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
  "transforms.route.regex": "(a+)+",
  "transforms.route.replacement": "routed",
};
const STRING = "org.apache.kafka.connect.storage.StringConverter";

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

async function metric(dev: Dev, name: string, connector: string): Promise<number> {
  const text = (await dev.connect.get("/metrics")).text ?? "";
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(`connector="${connector}"`));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("regex.match.timeout.ms=1h: matches end only at JavaScriptCore's own limit (a second or so each)", () => {
  let dev: Dev;
  beforeAll(async () => {
    dev = await startDev("unbounded", { CONNECT_REGEX_MATCH_TIMEOUT_MS: "3600000" });
  }, 60_000);
  afterAll(() => dev?.stop());

  test("while RegexRouter matches backtrack, both REST APIs answer and other tasks move records", async () => {
    const input = join(dev.work, "stuck.txt");
    writeFileSync(input, "one\n");
    // 30 routers: the record spends tens of seconds in its transforms, whatever the machine.
    const aliases = Array.from({ length: 30 }, (_, i) => `r${i}`);
    const routers = Object.fromEntries(
      aliases.flatMap((a) => [
        [`transforms.${a}.type`, "RegexRouter"],
        [`transforms.${a}.regex`, "(a+)+"],
        [`transforms.${a}.replacement`, "routed"],
      ]),
    );
    const config = {
      "connector.class": "FileStreamSource",
      file: input,
      topic: CATASTROPHIC_TOPIC,
      "value.converter": STRING,
      transforms: aliases.join(","),
      ...routers,
    };
    expect((await dev.connect.post("/connectors", { name: "stuck", config })).status).toBe(201);
    // Polled and handed to the transforms: from here until the task ends, the match is running.
    await waitFor(
      "the stuck task to poll its record",
      async () => (await metric(dev, "sluice_connect_source_records_polled_total", "stuck")) >= 1 || undefined,
    );

    const registryAnswer = await fetch(`${dev.registry}/subjects`);
    expect(registryAnswer.status).toBe(200);
    const status = await dev.connect.get("/connectors/stuck/status");
    expect((status.body as { tasks: { state: string }[] }).tasks.map((t) => t.state)).toEqual(["RUNNING"]);

    const flowIn = join(dev.work, "flow-in.txt");
    const flowOut = join(dev.work, "flow-out.txt");
    writeFileSync(flowIn, "x\ny\n");
    await dev.connect.post("/connectors", {
      name: "flow-src",
      config: { "connector.class": "FileStreamSource", file: flowIn, topic: "flow", "value.converter": STRING },
    });
    await dev.connect.post("/connectors", {
      name: "flow-sink",
      config: { "connector.class": "FileStreamSink", file: flowOut, topics: "flow", "value.converter": STRING },
    });
    await waitFor("records through the other connectors", () => lines(flowOut).length >= 2 || undefined);
    expect(lines(flowOut)).toEqual(["x", "y"]);

    // Still matching after all that: nothing was written, and the task did not end.
    expect(await metric(dev, "sluice_connect_source_records_written_total", "stuck")).toBe(0);
    expect(
      ((await dev.connect.get("/connectors/stuck/status")).body as { tasks: { state: string }[] }).tasks[0]!.state,
    ).toBe("RUNNING");
    expect((await dev.connect.delete("/connectors/stuck")).status).toBe(204);
  }, 60_000);

  test("a connector asking for 1000 tasks: both REST APIs answer while its tasks start", async () => {
    // dev's worker is a distributed one: the POST answers once the config is stored, and the tasks
    // start after. Both APIs are asked over and over until all 1000 run; the proof they answered
    // while tasks started is a status seen part-way (some running, not all).
    const created = await dev.connect.post("/connectors", {
      name: "many",
      config: {
        "connector.class": "FileStreamSink",
        file: join(dev.work, "many.txt"),
        topics: "many",
        "tasks.max": "1000",
      },
    });
    expect(created.status).toBe(201);
    const seen = new Set<number>();
    await waitFor(
      "1000 tasks running",
      async () => {
        expect((await fetch(`${dev.registry}/subjects`)).status).toBe(200);
        const status = await dev.connect.get("/connectors/many/status");
        const running =
          status.status === 200
            ? (status.body as { tasks: { state: string }[] }).tasks.filter((t) => t.state === "RUNNING").length
            : 0;
        seen.add(running);
        return running === 1000 || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1 },
    );
    expect([...seen].some((n) => n > 0 && n < 1000)).toBe(true);
    expect((await dev.connect.delete("/connectors/many")).status).toBe(204);
  }, 90_000);

  test("tasks.max above 1000 is refused when the connector is created, naming the bound", async () => {
    const reply = await dev.connect.post("/connectors", {
      name: "too-many",
      config: {
        "connector.class": "FileStreamSink",
        file: join(dev.work, "too-many.txt"),
        topics: "many",
        "tasks.max": "100000",
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain(
      "Invalid value 100000 for configuration tasks.max: Value must be no more than 1000",
    );
    expect((await fetch(`${dev.registry}/subjects`)).status).toBe(200);
  });
});

describe("a regex over its time budget (regex.match.timeout.ms default, 250)", () => {
  let dev: Dev;
  beforeAll(async () => {
    dev = await startDev("budget");
  }, 60_000);
  afterAll(() => dev?.stop());

  test("errors.tolerance=none: the task fails, naming the transform and the budget", async () => {
    const input = join(dev.work, "fail.txt");
    writeFileSync(input, "one\n");
    await dev.connect.post("/connectors", {
      name: "fails",
      config: {
        "connector.class": "FileStreamSource",
        file: input,
        topic: CATASTROPHIC_TOPIC,
        "value.converter": STRING,
        ...catastrophicRouter,
      },
    });
    const status = await waitFor("the task to fail", async () => {
      const s = (await dev.connect.get("/connectors/fails/status")).body as {
        tasks?: { state: string; trace?: string }[];
      };
      return s.tasks?.[0]?.state === "FAILED" ? s.tasks[0] : undefined;
    });
    expect(status.trace).toContain("Tolerance exceeded in error handler");
    expect(status.trace).toContain("RegexRouter");
    expect(status.trace).toContain("regex.match.timeout.ms=250");
    expect(await fetch(`${dev.registry}/subjects`).then((r) => r.status)).toBe(200);
  }, 60_000);

  test("validating a sink whose topics.regex backtracks on its DLQ name: both APIs answer meanwhile, and the budget is the problem reported", async () => {
    let validated = false;
    const validating = dev.connect
      .put("/connector-plugins/FileStreamSinkConnector/config/validate", {
        "connector.class": "FileStreamSink",
        name: "v",
        "topics.regex": "(a+)+",
        "errors.deadletterqueue.topic.name": CATASTROPHIC_TOPIC,
      })
      .then((reply) => {
        validated = true;
        return reply;
      });
    expect((await fetch(`${dev.registry}/subjects`)).status).toBe(200);
    expect((await dev.connect.get("/connectors")).status).toBe(200);
    expect(validated).toBe(false);
    const reply = await validating;
    expect(reply.status).toBe(200);
    const regex = (reply.body.configs as { value: { name: string; errors: string[] } }[]).find(
      (c) => c.value.name === "topics.regex",
    )!;
    expect(regex.value.errors).toEqual([
      `topics.regex '(a+)+' did not finish matching '${CATASTROPHIC_TOPIC}' (61 characters) within regex.match.timeout.ms=250`,
    ]);
  }, 60_000);

  test("errors.tolerance=all: the record goes to the dead letter queue and the others are delivered", async () => {
    const bad = join(dev.work, "bad.txt");
    const good = join(dev.work, "good.txt");
    writeFileSync(bad, "stuck\n");
    writeFileSync(good, "g1\ng2\n");
    const out = join(dev.work, "tolerated-out.txt");
    const dlqOut = join(dev.work, "dlq-out.txt");
    await dev.connect.post("/connectors", {
      name: "bad-src",
      config: {
        "connector.class": "FileStreamSource",
        file: bad,
        topic: CATASTROPHIC_TOPIC,
        "value.converter": STRING,
      },
    });
    await dev.connect.post("/connectors", {
      name: "good-src",
      config: { "connector.class": "FileStreamSource", file: good, topic: "good", "value.converter": STRING },
    });
    await dev.connect.post("/connectors", {
      name: "tolerant",
      config: {
        "connector.class": "FileStreamSink",
        file: out,
        topics: `${CATASTROPHIC_TOPIC},good`,
        "value.converter": STRING,
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": "dlq",
        "errors.deadletterqueue.topic.replication.factor": "1",
        ...catastrophicRouter,
      },
    });
    await dev.connect.post("/connectors", {
      name: "dlq-reader",
      config: { "connector.class": "FileStreamSink", file: dlqOut, topics: "dlq", "value.converter": STRING },
    });
    await waitFor("the record in the dead letter queue", () => lines(dlqOut).length >= 1 || undefined);
    await waitFor("the other records delivered", () => lines(out).length >= 2 || undefined);
    expect(lines(dlqOut)).toEqual(["stuck"]);
    expect(lines(out)).toEqual(["g1", "g2"]);
    expect(
      ((await dev.connect.get("/connectors/tolerant/status")).body as { tasks: { state: string }[] }).tasks[0]!.state,
    ).toBe("RUNNING");
  }, 60_000);
});
