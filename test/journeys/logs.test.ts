// What a person reads from dist/sluice: JSON lines with level names when the output goes to a file or
// a collector, readable coloured lines at a terminal, `log.format` to choose; and at INFO one line per
// lifecycle event of a connector and its tasks, a failure with its reason, and the shutdown.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient } from "../fixtures/connect.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";
import { logLines, type LogLine } from "../fixtures/logs.ts";
import { freeListener, install, type Install, type Running } from "../fixtures/sluice-process.ts";

let sluice: Install;
beforeAll(() => {
  sluice = install();
}, 180_000);
afterAll(() => sluice.remove());

/** Waits until dev has logged a line with this message; returns it. */
const logged = (dev: Running, msg: string) =>
  waitFor(`the log line "${msg}"`, () => logLines(dev.output()).find((l) => l.msg === msg), {
    timeoutMs: 30_000,
    intervalMs: 50,
  });

describe("a connector's life, as the log tells it", () => {
  test("dev with its output in a file: JSON lines with named levels, one INFO line per lifecycle event, the failure with its reason", async () => {
    const port = freePort();
    const dev = await sluice.start([
      "dev",
      "--connect-listeners",
      `http://127.0.0.1:${port}`,
      "--registry-listeners",
      freeListener(),
      "--data-dir",
      "lifecycle-data",
    ]);
    const api = connectClient(`http://127.0.0.1:${port}`);
    const input = join(sluice.dir, "input.txt");
    writeFileSync(input, "one\n");
    const config = { "connector.class": "FileStreamSource", file: input, topic: "lines" };

    expect((await api.post("/connectors", { name: "lines", config })).status).toBe(201);
    await logged(dev, "connector lines created");
    await logged(dev, "connector lines started");
    await logged(dev, "task lines-0 started");
    await api.put("/connectors/lines/pause");
    await logged(dev, "connector lines paused");
    await logged(dev, "task lines-0 paused");
    await api.put("/connectors/lines/resume");
    await logged(dev, "connector lines resumed");
    await logged(dev, "task lines-0 resumed");
    await api.post("/connectors/lines/restart?includeTasks=true");
    await logged(dev, "restarting connector lines");
    await logged(dev, "task lines-0 stopped");
    await api.put("/connectors/lines/stop");
    await logged(dev, "connector lines stopped");
    await api.waitForState("lines", "STOPPED");
    expect((await api.delete("/connectors/lines/offsets")).status).toBe(200);
    await waitFor("the reset offsets line", () =>
      logLines(dev.output()).find((l) => /^offsets of connector lines reset/.test(l.msg)),
    );
    expect((await api.delete("/connectors/lines")).status).toBe(204);
    await logged(dev, "connector lines deleted");

    // A directory is no file to read: the task fails, and the log says why.
    expect((await api.post("/connectors", { name: "broken", config: { ...config, file: sluice.dir } })).status).toBe(
      201,
    );
    const failed = await waitFor(
      "the failure line",
      () => logLines(dev.output()).find((l) => l.msg.startsWith("task broken-0 failed: ")),
      { timeoutMs: 30_000 },
    );
    expect(failed.level).toBe("error");
    expect(failed.msg).toContain("EISDIR");
    expect(failed.reason).toContain("EISDIR");

    dev.proc.kill("SIGINT");
    expect(await dev.proc.exited).toBe(0);
    // Every line is JSON: nothing else is written to the output.
    expect(
      dev
        .output()
        .split("\n")
        .filter((l) => l.length > 0 && !l.startsWith("{")),
    ).toEqual([]);
    const lines = logLines(dev.output());
    expect(lines.every((l) => ["trace", "debug", "info", "warn", "error", "fatal"].includes(l.level))).toBe(true);
    const lifecycle = lines.filter((l) => l.connector === "lines" && l.level === "info").map((l) => l.msg);
    expect(lifecycle.every((msg) => msg.includes("lines"))).toBe(true);
    const shutdown = lines.filter((l) => l.logger === "sluice" && l.msg.startsWith("shutdown"));
    expect(shutdown.map((l) => [l.level, l.msg])).toEqual([
      ["info", "shutdown begun"],
      ["info", "shutdown done"],
    ]);
    // The stop at shutdown is said too, between the two.
    const stoppedAt = lines.findIndex((l) => l.msg === "connector broken stopped");
    expect(stoppedAt).toBeGreaterThan(lines.indexOf(shutdown[0]!));
    expect(stoppedAt).toBeLessThan(lines.indexOf(shutdown[1]!));
  }, 120_000);
});

describe("the log's form", () => {
  /** A port something else listens on: the registry fails to start after logging its first lines. */
  const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const busyPort = busy.port;
  afterAll(() => busy.stop(true));

  test("at a terminal: readable lines with the level's name and colour, no JSON", () => {
    // script(1) gives the binary a terminal, as a person's shell does.
    const command = `${sluice.bin} registry --listeners http://127.0.0.1:${busyPort} --data-dir tty-data`;
    const r = spawnSync(["script", "-qec", command, "/dev/null"], {
      cwd: sluice.dir,
      env: { PATH: process.env.PATH ?? "", HOME: sluice.dir, TERM: "xterm" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const lines = r.stdout
      .toString()
      .split(/\r?\n/)
      .filter((l) => l.includes("[schema-log]") || l.includes("[config]"));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.some((l) => l.trimStart().startsWith("{"))).toBe(false);
    const embedded = lines.find((l) => l.includes("embedded broker"))!;
    expect(embedded).toContain("\u001b[33mWARN \u001b[0m");
    const plain = lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ""));
    expect(plain).toContainEqual(
      expect.stringMatching(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}\[schema-log\] created the schemas topic topic=_schemas$/,
      ),
    );
  });

  test("log.format=text without a terminal: readable lines, no colour; log.format=json at a terminal: JSON lines", () => {
    const text = sluice.run([
      "registry",
      "--listeners",
      `http://127.0.0.1:${busyPort}`,
      "--data-dir",
      "text-data",
      "--log.format=text",
    ]).stdout;
    const lines = text.split("\n").filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) /.test(l))).toBe(true);
    expect(text).not.toContain("\u001b[");

    const command = `${sluice.bin} registry --listeners http://127.0.0.1:${busyPort} --data-dir json-data`;
    const r = spawnSync(["script", "-qec", command, "/dev/null"], {
      cwd: sluice.dir,
      env: { PATH: process.env.PATH ?? "", HOME: sluice.dir, SCHEMA_REGISTRY_LOG_FORMAT: "json" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const json = r.stdout
      .toString()
      .split(/\r?\n/)
      .filter((l) => l.includes('"logger":"schema-log"'));
    expect(json.length).toBeGreaterThan(0);
    expect(json.map((l) => (JSON.parse(l) as LogLine).level)).toContain("info");
  });

  test("an unknown log.format is refused at start, naming the allowed values", () => {
    const { exitCode, stderr } = sluice.run(["registry", "--listeners", freeListener(), "--log.format=pretty"]);
    expect(stderr).toContain("log.format");
    expect(stderr).toContain("json, text");
    expect(exitCode).toBe(1);
  });
});
