// An example plugin: a source connector writing sequence numbers. Sluice loads every .js/.ts module in
// plugin.path at start-up; a module's default export receives the plugin SDK and returns its classes.
// Usage: {"connector.class": "SequenceSource", "topic": "numbers", "tasks.max": "2", "sequence.max": "1000"}

// The type import is erased at run time; plugins outside this repository can leave types out.
import type { PluginSdk } from "../src/connect/api/sdk.ts";

export default (sdk: PluginSdk) => {
  const settings = new sdk.SettingsDefinition([
    { name: "topic", type: "string", required: true, importance: "high", doc: "Topic the numbers are written to." },
    {
      name: "sequence.max",
      type: "long",
      default: 0,
      min: 0,
      importance: "medium",
      doc: "Numbers per task; 0 = no end.",
    },
    { name: "sequence.interval.ms", type: "long", default: 0, min: 0, importance: "low", doc: "Pause between polls." },
  ]);

  class SequenceSourceTask extends sdk.SourceTask {
    private topic = "";
    private max = 0;
    private interval = 0;
    private task = "";
    private next = 0;
    version() {
      return sdk.VERSION;
    }
    start(props: Record<string, string>) {
      const values = settings.parse(props).values;
      this.topic = values.string("topic");
      this.max = values.int("sequence.max");
      this.interval = values.int("sequence.interval.ms");
      this.task = props["task.id"] ?? "0";
      // Resume after the last committed number: nothing is skipped, at most the uncommitted repeat.
      const offset = this.context.offsetStorageReader.offset({ task: this.task });
      this.next = offset ? Number(offset.next) : 0;
    }
    async poll() {
      if (this.interval) await Bun.sleep(this.interval);
      if (this.max && this.next >= this.max) {
        await Bun.sleep(100);
        return null;
      }
      const end = this.max ? Math.min(this.max, this.next + 100) : this.next + 100;
      const records: ReturnType<typeof sdk.sourceRecord>[] = [];
      for (; this.next < end; this.next++) {
        records.push(
          sdk.sourceRecord({
            sourcePartition: { task: this.task },
            sourceOffset: { next: this.next + 1 },
            topic: this.topic,
            keySchema: sdk.Schema.STRING_SCHEMA,
            key: this.task,
            valueSchema: sdk.Schema.INT64_SCHEMA,
            value: this.next,
          }),
        );
      }
      return records;
    }
    stop() {}
  }

  class SequenceSourceConnector extends sdk.SourceConnector {
    private props: Record<string, string> = {};
    static className = "io.sluice.examples.SequenceSourceConnector";
    version() {
      return sdk.VERSION;
    }
    start(props: Record<string, string>) {
      settings.parse(props);
      this.props = props;
    }
    taskClass() {
      return SequenceSourceTask;
    }
    taskConfigs(maxTasks: number) {
      return Array.from({ length: maxTasks }, (_, i) => ({ ...this.props, "task.id": String(i) }));
    }
    stop() {}
    config() {
      return settings;
    }
    /** Each task restarts at the number after its committed offset. */
    override exactlyOnceSupport() {
      return "SUPPORTED" as const;
    }
  }

  return [SequenceSourceConnector];
};
