// A thread started ahead of a connector's tasks (TaskThreads.prepare): one at most, taken by the first
// task, and ended when no task comes.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { ConnectMetrics } from "#src/connect/runtime/metrics.ts";
import { FileOffsetStore } from "#src/connect/runtime/storage/offset-store.ts";
import { TaskThreads } from "#src/connect/runtime/threads/task-threads.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { currentLogSettings } from "#src/platform/log.ts";
import { CONNECT_FILE_JAR } from "../../fixtures/connect.ts";
import { tempBroker, type TempBroker } from "../../fixtures/embedded-broker.ts";
import { waitFor } from "../../fixtures/wait.ts";

const TASK_THREAD = new URL("../../../src/task-thread.ts", import.meta.url).href;
let temp: TempBroker | undefined;
let threads: TaskThreads | undefined;

afterEach(async () => {
  threads?.close();
  await temp?.close();
});

async function taskThreads(preparedIdleMs: number): Promise<TaskThreads> {
  temp = await tempBroker();
  threads = new TaskThreads({
    entry: TASK_THREAD,
    max: 2,
    init: {
      workerId: "w",
      // The FileStream connectors enabled as Kafka's quickstart does: their jar on the plugin path.
      settings: workerSettings
        .parse({ "bootstrap.servers": "unused:9092", "plugin.path": `/opt/libs/${CONNECT_FILE_JAR}` })
        .values.snapshot(),
      log: currentLogSettings(),
      broker: { kind: "embedded" },
    },
    broker: temp.broker,
    offsets: await FileOffsetStore.open(join(temp.dir, "offsets"), "offset.storage.file.filename"),
    metrics: new ConnectMetrics(),
    preparedIdleMs,
  });
  return threads;
}

test("prepare() starts one thread when there is none, and no more when one is there", async () => {
  const pool = await taskThreads(60_000);
  expect(pool.size).toBe(0);
  pool.prepare();
  expect(pool.size).toBe(1);
  pool.prepare();
  expect(pool.size).toBe(1);
});

test("a prepared thread that no task comes to ends", async () => {
  const pool = await taskThreads(50);
  pool.prepare();
  expect(pool.size).toBe(1);
  await waitFor("the idle thread to end", () => pool.size === 0);
});

test("the first task runs on the prepared thread; when it stops, the thread ends", async () => {
  const pool = await taskThreads(60_000);
  pool.prepare();
  const config = {
    "connector.class": "FileStreamSink",
    name: "sink",
    topics: "t",
    file: join(temp!.dir, "out.txt"),
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
  };
  const states: string[] = [];
  const task = pool.start(
    {
      connector: "sink",
      index: 0,
      connectorConfig: config,
      taskConfig: config,
      workerConverters: { "key.converter": "org.apache.kafka.connect.storage.StringConverter" },
      paused: false,
    },
    [],
    { onStatus: (status) => states.push(status.state), onTopic: () => {} },
  );
  expect(pool.size).toBe(1);
  await waitFor("the task running", () => states.includes("RUNNING"));
  await task.stop(5000);
  expect(pool.size).toBe(0);
});
