// A sink's dead letter queue (Kafka's DeadLetterQueueReporter): each record whose failure was
// tolerated goes, as read (key, value, headers, timestamp), to errors.deadletterqueue.topic.name,
// with the error context in __connect.errors.* headers when asked for.
import { encoder, type Broker, type RecordHeader } from "../../../broker/broker.ts";
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { ErrorContext, ErrorReporter } from "./tolerance.ts";

const HEADER_PREFIX = "__connect.errors.";

export class DeadLetterQueueReporter implements ErrorReporter {
  private constructor(
    private readonly broker: Broker,
    readonly topic: string,
    private readonly contextHeaders: boolean,
    private readonly connector: string,
    private readonly taskIndex: number,
  ) {}

  /**
   * The reporter for a sink task's settings, its topic created when missing (as Kafka's reporter: one
   * partition, errors.deadletterqueue.topic.replication.factor, -1 leaving it to the broker); undefined
   * when the connector names no dead letter queue.
   */
  static async create(
    broker: Broker,
    settings: ParsedSettings,
    connector: string,
    taskIndex: number,
  ): Promise<DeadLetterQueueReporter | undefined> {
    const topic = settings.string("errors.deadletterqueue.topic.name");
    if (!topic) return undefined;
    if (!(await broker.describeTopic(topic))) {
      await broker.createTopic({
        name: topic,
        partitions: 1,
        replicationFactor: settings.int("errors.deadletterqueue.topic.replication.factor"),
      });
    }
    return new DeadLetterQueueReporter(
      broker,
      topic,
      settings.boolean("errors.deadletterqueue.context.headers.enable"),
      connector,
      taskIndex,
    );
  }

  async report(error: Error, context: ErrorContext): Promise<void> {
    const raw = context.original;
    if (!raw) return; // a failure of no consumed record (a source's): nothing to send
    // The record's own headers as read (repeated keys, null values), the context's added after them.
    const headers: RecordHeader[] = [...raw.headers];
    if (this.contextHeaders) {
      const put = (name: string, value: string) =>
        headers.push({ key: `${HEADER_PREFIX}${name}`, value: encoder.encode(value) });
      put("topic", raw.topic);
      put("partition", String(raw.partition));
      put("offset", String(raw.offset));
      put("connector.name", this.connector);
      put("task.id", String(this.taskIndex));
      put("stage", context.stage);
      put("class.name", context.className);
      put("exception.class.name", error.name);
      if (error.message) put("exception.message", error.message);
      if (error.stack) put("exception.stacktrace", error.stack);
    }
    await this.broker.produce(this.topic, [
      { key: raw.key, value: raw.value, partition: 0, timestamp: raw.timestamp, headers },
    ]);
  }
}
