// The standalone herder over a worker on an embedded broker, with a scripted source connector: create,
// replace, pause, resume, stop and delete, and KIP-745's restart plans (which parts restart, what the
// planned statuses show).
import { afterEach, describe, expect, test } from "bun:test";
import { sourceRecord } from "#src/connect/api/records.ts";
import { StandaloneHerder } from "#src/connect/runtime/herder/standalone.ts";
import type { ConnectorStateInfo } from "#src/connect/runtime/herder/herder.ts";
import { waitFor } from "../../../../fixtures/wait.ts";
import {
  FAIL_CONNECTOR,
  FAIL_TASKS,
  RECORDING_SINK,
  SCRIPTED_SOURCE,
  startWorker,
  type Script,
} from "../scripted-worker.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function standalone(): Promise<{ herder: StandaloneHerder; script: Script }> {
  const { worker, script, close } = await startWorker();
  cleanups.push(close);
  return { herder: new StandaloneHerder(worker), script };
}

const source = (extra: Record<string, string> = {}) => ({
  "connector.class": SCRIPTED_SOURCE,
  "tasks.max": "2",
  ...extra,
});

/** "CONNECTOR 0:TASK 1:TASK": the states GET /connectors/{c}/status shows. */
function states(status: ConnectorStateInfo): string {
  return [status.connector.state, ...status.tasks.map((t) => `${t.id}:${t.state}`)].join(" ");
}

/** Waits until the connector's status reads `expected` (tasks start in the background). */
function settled(herder: StandaloneHerder, name: string, expected: string): Promise<unknown> {
  return waitFor(`${name} to be ${expected}`, async () => states(await herder.status(name)) === expected, {
    timeoutMs: 5000,
    intervalMs: 5,
  });
}

async function rejection(promise: Promise<unknown> | (() => unknown)): Promise<{ status: number; message: string }> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (err) {
    return { status: (err as { status: number }).status, message: (err as Error).message };
  }
  throw new Error("expected a rejection");
}

describe("create and replace", () => {
  test("a new connector runs its tasks, each config naming its task class; creating it again is a conflict", async () => {
    const { herder, script } = await standalone();
    const { created, info } = await herder.putConnector("src", source(), { allowReplace: false });
    expect(created).toBe(true);
    expect(info).toMatchObject({
      name: "src",
      type: "source",
      tasks: [
        { connector: "src", task: 0 },
        { connector: "src", task: 1 },
      ],
    });
    expect(info.config.name).toBe("src");
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    expect(herder.taskConfigs("src").map((t) => [t.id.task, t.config.index, t.config["task.class"]])).toEqual([
      [0, "0", "test.ScriptedSourceTask"],
      [1, "1", "test.ScriptedSourceTask"],
    ]);
    expect(herder.connectorNames()).toEqual(["src"]);
    expect(await rejection(herder.putConnector("src", source(), { allowReplace: false }))).toEqual({
      status: 409,
      message: "Connector src already exists",
    });
    expect(script.connectorStarts).toBe(1);
  });

  test("replacing the config restarts the connector and its tasks with it", async () => {
    const { herder, script } = await standalone();
    await herder.putConnector("src", source(), { allowReplace: false });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    const { created, info } = await herder.putConnector("src", source({ "tasks.max": "1" }), { allowReplace: true });
    expect(created).toBe(false);
    expect(info.tasks).toEqual([{ connector: "src", task: 0 }]);
    await settled(herder, "src", "RUNNING 0:RUNNING");
    expect(script.connectorStarts).toBe(2);
    expect(script.taskStarts).toEqual([0, 1, 0]);
  });

  test("PATCH merges into the config (null removes a key); a name that is not the connector's is refused", async () => {
    const { herder } = await standalone();
    await herder.putConnector("src", source({ "script.note": "x" }), { allowReplace: false });
    const info = await herder.patchConnector("src", { "tasks.max": "1", "script.note": null });
    expect(info.config).toEqual({ name: "src", "connector.class": SCRIPTED_SOURCE, "tasks.max": "1" });
    expect(await rejection(herder.patchConnector("src", { name: "other" }))).toEqual({
      status: 400,
      message: "Connector name configuration (other) doesn't match connector name in the URL (src)",
    });
  });

  test("an invalid config is refused before anything starts", async () => {
    const { herder, script } = await standalone();
    const refused = await rejection(herder.putConnector("src", source({ "tasks.max": "0" }), { allowReplace: false }));
    expect(refused.status).toBe(400);
    expect(refused.message).toContain("tasks.max");
    expect(herder.connectorNames()).toEqual([]);
    expect(script.connectorStarts).toBe(0);
  });
});

describe("target states", () => {
  test("created PAUSED it has no tasks until resumed; created STOPPED it is STOPPED", async () => {
    const { herder, script } = await standalone();
    await herder.putConnector("paused", source(), { allowReplace: false, initialState: "PAUSED" });
    expect(states(await herder.status("paused"))).toBe("PAUSED");
    expect(herder.info("paused").tasks).toEqual([]);
    await herder.resume("paused");
    await settled(herder, "paused", "RUNNING 0:RUNNING 1:RUNNING");

    await herder.putConnector("stopped", source(), { allowReplace: false, initialState: "STOPPED" });
    expect(states(await herder.status("stopped"))).toBe("STOPPED");
    expect(script.connectorStarts).toBe(2); // paused's start, then its start on resume; stopped never started
  });

  test("pause and resume reach the connector and every task", async () => {
    const { herder } = await standalone();
    await herder.putConnector("src", source(), { allowReplace: false });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    await herder.pause("src");
    await settled(herder, "src", "PAUSED 0:PAUSED 1:PAUSED");
    await herder.resume("src");
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    expect(await rejection(herder.pause("nope"))).toEqual({ status: 404, message: "Unknown connector nope" });
  });

  test("stop (KIP-875) leaves no tasks; a second stop does nothing; resume starts it afresh", async () => {
    const { herder, script } = await standalone();
    await herder.putConnector("src", source(), { allowReplace: false });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    await herder.stop("src");
    await herder.stop("src");
    expect(states(await herder.status("src"))).toBe("STOPPED");
    expect(herder.info("src").tasks).toEqual([]);
    // Pausing a stopped connector only changes its target: it stays STOPPED.
    await herder.pause("src");
    expect(states(await herder.status("src"))).toBe("STOPPED");
    await herder.resume("src");
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    expect(script.connectorStarts).toBe(2);
    expect(await rejection(herder.stop("nope"))).toEqual({ status: 404, message: "No connector `nope` configured" });
  });

  test("delete stops it and forgets it", async () => {
    const { herder } = await standalone();
    await herder.putConnector("src", source(), { allowReplace: false });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:RUNNING");
    await herder.deleteConnector("src");
    expect(herder.connectorNames()).toEqual([]);
    expect(await rejection(() => herder.status("src"))).toEqual({
      status: 404,
      message: "No status found for connector src",
    });
    expect(await rejection(herder.deleteConnector("src"))).toEqual({ status: 404, message: "Connector src not found" });
  });
});

describe("restart (KIP-745)", () => {
  /** A connector whose task 1 fails at start, settled. */
  async function withFailedTask() {
    const { herder, script } = await standalone();
    await herder.putConnector("src", source({ [FAIL_TASKS]: "1" }), { allowReplace: false });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:FAILED");
    script.taskStarts.length = 0;
    script.connectorStarts = 0;
    return { herder, script };
  }

  test("without includeTasks and onlyFailed: the connector alone, and no plan is returned", async () => {
    const { herder, script } = await withFailedTask();
    expect(await herder.restart("src", false, false)).toBeUndefined();
    expect(script.connectorStarts).toBe(1);
    // Its task configs are unchanged, so its tasks keep running (and failing).
    expect(script.taskStarts).toEqual([]);
    expect(states(await herder.status("src"))).toBe("RUNNING 0:RUNNING 1:FAILED");
  });

  test("includeTasks and onlyFailed: only the failed task restarts; the plan shows it RESTARTING with its last trace", async () => {
    const { herder, script } = await withFailedTask();
    const trace = (await herder.taskStatus("src", 1)).trace;
    expect(trace).toContain("task 1 refuses to start");
    const planned = (await herder.restart("src", true, true))!;
    expect(states(planned)).toBe("RUNNING 0:RUNNING 1:RESTARTING");
    expect(planned.tasks[1]!.trace).toBe(trace);
    await waitFor("the task's restart", () => script.taskStarts.length === 1 || undefined, {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:FAILED");
    expect(script.taskStarts).toEqual([1]);
    expect(script.connectorStarts).toBe(0);
  });

  test("includeTasks alone: the connector and every task restart", async () => {
    const { herder, script } = await withFailedTask();
    const planned = (await herder.restart("src", true, false))!;
    expect(states(planned)).toBe("RESTARTING 0:RESTARTING 1:RESTARTING");
    await waitFor("the tasks' restarts", () => script.taskStarts.length === 2 || undefined, {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    await settled(herder, "src", "RUNNING 0:RUNNING 1:FAILED");
    expect(script.taskStarts.sort()).toEqual([0, 1]);
    expect(script.connectorStarts).toBe(1);
  });

  test("onlyFailed on a failed connector restarts it; on a running one it restarts nothing", async () => {
    const { herder, script } = await standalone();
    await herder.putConnector("broken", source({ [FAIL_CONNECTOR]: "true" }), { allowReplace: false });
    expect(states(await herder.status("broken"))).toBe("FAILED");
    const planned = (await herder.restart("broken", false, true))!;
    expect(states(planned)).toBe("RESTARTING");
    expect(planned.connector.trace).toContain("the connector refuses to start");
    await settled(herder, "broken", "FAILED");
    expect(script.connectorStarts).toBe(2);

    await herder.putConnector("fine", source(), { allowReplace: false });
    await settled(herder, "fine", "RUNNING 0:RUNNING 1:RUNNING");
    const starts = script.connectorStarts;
    expect(states((await herder.restart("fine", true, true))!)).toBe("RUNNING 0:RUNNING 1:RUNNING");
    expect(script.connectorStarts).toBe(starts);
  });

  test("unknown connectors and tasks are 404s", async () => {
    const { herder } = await withFailedTask();
    expect(await rejection(herder.restart("nope", true, false))).toEqual({
      status: 404,
      message: "Unknown connector: nope",
    });
    expect(await rejection(herder.restartTask("src", 5))).toEqual({ status: 404, message: "Task src-5 not found" });
    expect(await rejection(() => herder.taskStatus("src", 5))).toEqual({
      status: 404,
      message: "No status found for task src-5",
    });
  });
});

describe("offsets (KIP-875), on HerderBase", () => {
  const NOT_STOPPED =
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/src/stop' endpoint";

  test("a source's offsets are altered and reset in the offset store, only while it is STOPPED", async () => {
    const { herder } = await standalone();
    await herder.putConnector("src", source(), { allowReplace: false });
    const offsets = [{ partition: { file: "a" }, offset: { position: 7 } }];
    expect(await rejection(herder.alterOffsets("src", offsets))).toEqual({ status: 400, message: NOT_STOPPED });
    await herder.stop("src");
    expect(await rejection(herder.alterOffsets("src", []))).toEqual({
      status: 400,
      message: "Partitions / offsets need to be provided for an alter offsets request",
    });
    expect(await herder.alterOffsets("src", offsets)).toStartWith(
      "The Connect framework-managed offsets for this connector have been altered successfully.",
    );
    expect(await herder.offsets("src")).toEqual({ offsets });
    expect(await herder.resetOffsets("src")).toStartWith(
      "The Connect framework-managed offsets for this connector have been reset successfully.",
    );
    expect(await herder.offsets("src")).toEqual({ offsets: [] });
  });

  test("a sink's offsets are its group's positions; standalone hides a reset partition until the connector runs again", async () => {
    const { herder } = await standalone();
    await herder.worker.options.broker.createTopic({ name: "in", partitions: 2, replicationFactor: 1 });
    await herder.putConnector(
      "sink",
      { "connector.class": RECORDING_SINK, topics: "in" },
      { allowReplace: false, initialState: "STOPPED" },
    );
    const at = (partition: number, offset: number | null) => ({
      partition: { kafka_topic: "in", kafka_partition: partition },
      offset: offset === null ? null : { kafka_offset: offset },
    });
    await herder.alterOffsets("sink", [at(0, 0), at(1, 0)]);
    expect(await herder.offsets("sink")).toEqual({ offsets: [at(0, 0), at(1, 0)] });
    await herder.alterOffsets("sink", [at(1, null)]);
    expect(await herder.offsets("sink")).toEqual({ offsets: [at(0, 0)] });
    expect(await rejection(herder.alterOffsets("sink", [{ partition: { kafka_topic: "in" }, offset: null }]))).toEqual({
      status: 400,
      message: "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
    });
  });
});

describe("what the herder shares with the REST layer", () => {
  test("topics the connector wrote to, until reset; the worker's plugins, settings and metrics; validation", async () => {
    const { herder, script } = await standalone();
    await herder.putConnector("src", source({ "tasks.max": "1" }), { allowReplace: false });
    script.toPoll.push(sourceRecord({ sourcePartition: {}, sourceOffset: {}, topic: "written", value: null }));
    await waitFor("the topic", async () => (await herder.topics("src")).src.topics.length > 0 || undefined, {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    expect(await herder.topics("src")).toEqual({ src: { topics: ["written"] } });
    await herder.resetTopics("src");
    expect(await herder.topics("src")).toEqual({ src: { topics: [] } });
    // Kafka answers for any name.
    expect(await herder.topics("nope")).toEqual({ nope: { topics: [] } });

    expect(herder.plugins().find(SCRIPTED_SOURCE, "source")?.className).toBe(SCRIPTED_SOURCE);
    expect(herder.settings().int("offset.flush.interval.ms")).toBe(60000);
    expect(herder.metrics()).toBe(herder.worker.metrics);
    expect(herder.workerId).toBe("w");
    const infos = await herder.validate({ "connector.class": SCRIPTED_SOURCE, name: "v", "tasks.max": "0" });
    expect(infos.error_count).toBe(1);
    expect(infos.configs.find((c) => c.value?.name === "tasks.max")?.value?.errors).toEqual([
      "Invalid value 0 for configuration tasks.max: Value must be at least 1",
    ]);
  });
});
