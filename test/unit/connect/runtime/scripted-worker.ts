// A worker on an embedded broker in a temp dir (source offsets in a file there), with two small scripted connectors beside the
// built-ins: test.RecordingSink (records what its tasks were given) and test.ScriptedSource (hands out
// what the test queues). Each worker has its own Script, so tests do not share state.
import { join } from "node:path";
import { SettingsDefinition } from "#src/platform/settings.ts";
import { builtinPlugins } from "#src/catalog.ts";
import {
  Connector,
  SinkTask,
  SourceTask,
  type ConnectorType,
  type TaskClass,
  type TopicPartition,
} from "#src/connect/api/connector.ts";
import type { SinkRecord, SourceRecord } from "#src/connect/api/records.ts";
import { FileOffsetStore } from "#src/connect/runtime/storage/offset-store.ts";
import { Worker, type ConnectorCallbacks } from "#src/connect/runtime/worker/worker.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import type { Status } from "#src/connect/runtime/status.ts";
import { tempBroker } from "../../../fixtures/embedded-broker.ts";

export const RECORDING_SINK = "test.RecordingSink";
export const SCRIPTED_SOURCE = "test.ScriptedSource";
/** Connector setting of both: task indexes (comma-separated) whose start() throws. */
export const FAIL_TASKS = "script.fail.tasks";
/** Connector setting of both: "true" makes the connector's start() throw. */
export const FAIL_CONNECTOR = "script.fail.connector";

/** What the scripted connectors and tasks saw, and the records the source hands out. */
export class Script {
  /** Partitions each sink task was opened with, by task index. */
  readonly opened = new Map<number, TopicPartition[]>();
  readonly put: SinkRecord[] = [];
  /** Handed out by the next poll, once each. */
  readonly toPoll: SourceRecord[] = [];
  connectorStarts = 0;
  /** Task indexes, in the order their tasks started. */
  readonly taskStarts: number[] = [];
}

function startTask(script: Script, props: Record<string, string>): number {
  const index = Number(props.index);
  script.taskStarts.push(index);
  if ((props[FAIL_TASKS] ?? "").split(",").includes(String(index))) throw new Error(`task ${index} refuses to start`);
  return index;
}

/** The two connectors, their task classes closing over `script` (a task class takes no arguments). */
function scriptedConnectors(script: Script): { sink: () => Connector; source: () => Connector } {
  class RecordingSinkTask extends SinkTask {
    private index = -1;
    version = () => "1";
    start(props: Record<string, string>) {
      this.index = startTask(script, props);
    }
    override open(partitions: TopicPartition[]) {
      script.opened.set(this.index, partitions);
    }
    put(records: SinkRecord[]) {
      script.put.push(...records);
    }
    stop() {}
  }
  class ScriptedSourceTask extends SourceTask {
    version = () => "1";
    start(props: Record<string, string>) {
      startTask(script, props);
    }
    async poll() {
      if (script.toPoll.length > 0) return script.toPoll.splice(0);
      await Bun.sleep(10); // an idle source waits a little, as a real one would
      return null;
    }
    stop() {}
  }
  /** Either connector (the runtime tells them by `type`): counts its starts, gives each task its props and index. */
  class ScriptedConnector extends Connector {
    private props: Record<string, string> = {};
    constructor(
      readonly type: ConnectorType,
      private readonly tasks: TaskClass,
    ) {
      super();
    }
    version = () => "1";
    start(props: Record<string, string>) {
      script.connectorStarts++;
      if (props[FAIL_CONNECTOR] === "true") throw new Error("the connector refuses to start");
      this.props = props;
    }
    taskClass = () => this.tasks;
    taskConfigs = (max: number) => Array.from({ length: max }, (_, i) => ({ ...this.props, index: String(i) }));
    stop() {}
    config = () => new SettingsDefinition([]);
  }
  return {
    sink: () => new ScriptedConnector("sink", RecordingSinkTask),
    source: () => new ScriptedConnector("source", ScriptedSourceTask),
  };
}

export interface ScriptedWorker {
  broker: Awaited<ReturnType<typeof tempBroker>>["broker"];
  worker: Worker;
  script: Script;
  /** Task statuses reported through startTask, by index. */
  statuses: Map<number, Status>;
  /** Starts task `index` of `config` (task config `{index}`) and waits until it runs or failed. */
  startTask(config: Record<string, string>, index?: number): Promise<Status | undefined>;
  /** Stops the worker, closes the broker and removes its directory. */
  close(): Promise<void>;
}

export async function startWorker(workerConfig: Record<string, string> = {}): Promise<ScriptedWorker> {
  const { broker, dir, close } = await tempBroker();
  const script = new Script();
  const plugins = builtinPlugins({ fileConnectors: false });
  const connectors = scriptedConnectors(script);
  plugins.add({ className: RECORDING_SINK, type: "sink", create: connectors.sink });
  plugins.add({ className: SCRIPTED_SOURCE, type: "source", create: connectors.source });
  const offsets = await FileOffsetStore.open(join(dir, "connect.offsets"), "offset.storage.file.filename");
  const settings = workerSettings.parse(workerConfig).values;
  const worker = new Worker({ workerId: "w", broker, plugins, offsets, settings, workerConfig });
  const statuses = new Map<number, Status>();
  const settled = new Map<number, () => void>();
  const callbacks: ConnectorCallbacks = {
    onConnectorStatus: () => {},
    onTaskStatus: (index, status) => {
      statuses.set(index, status);
      if (status.state === "RUNNING" || status.state === "FAILED") settled.get(index)?.();
    },
    onTopic: () => {},
    requestTaskReconfiguration: () => {},
  };
  return {
    broker,
    worker,
    script,
    statuses,
    startTask: async (config, index = 0) => {
      statuses.delete(index);
      const running = new Promise<void>((resolve) => settled.set(index, resolve));
      await worker.startTask(config.name!, index, config, { index: String(index) }, false, callbacks);
      await running;
      return statuses.get(index);
    },
    close: async () => {
      await worker.stop();
      await close();
    },
  };
}
