// Debezium's Kafka signal channel (signal.enabled.channels=kafka): records on partition 0 of
// signal.kafka.topic whose key is the connector's topic.prefix carry a signal as JSON `{"id", "type",
// "data"}` (records of other keys are for other connectors). As Debezium's consumer, it reads with
// the consumer group signal.kafka.groupId from the group's committed offset (the earliest offset when
// there is none) and commits what was acted on, so a restarted task does not act on a signal twice.
// The records are fetched in the background: the task's poll loop never waits on Kafka.
import type { TopicReader, TopicReaderOptions } from "../../../connect/api/connector.ts";
import type { Logger } from "../../../platform/log.ts";
import { ConfigError } from "../../../platform/settings.ts";
import { signalOf, type Signal, type SignalChannel } from "./signal.ts";

/** Debezium's prefix of the signal consumer's own Kafka settings (security ones at least). */
export const SIGNAL_CONSUMER_PREFIX = "signal.consumer.";
/** The signal channel reads one partition, as Debezium's assigns partition 0 only. */
const PARTITION = 0;
const decoder = new TextDecoder();

export interface KafkaSignalSettings {
  readonly topic: string;
  readonly bootstrapServers: readonly string[];
  readonly groupId: string;
  /** How long one fetch waits for records (signal.kafka.poll.timeout.ms). */
  readonly pollTimeoutMs: number;
  /** signal.consumer.* without the prefix. */
  readonly consumer: Readonly<Record<string, string>>;
}

/** The signal consumer's settings of a connector's config (signal.consumer.*), without the prefix. */
export function signalConsumerSettings(props: Record<string, string>): Record<string, string> {
  const consumer: Record<string, string> = {};
  for (const [key, value] of Object.entries(props))
    if (key.startsWith(SIGNAL_CONSUMER_PREFIX)) consumer[key.slice(SIGNAL_CONSUMER_PREFIX.length)] = value;
  return consumer;
}

/** The reader options of the signal topic: signal.consumer.group.id, when given, wins over signal.kafka.groupId (Debezium's). */
export function signalTopicReaderOptions(settings: KafkaSignalSettings): TopicReaderOptions {
  const { consumer } = settings;
  return {
    bootstrapServers: settings.bootstrapServers,
    topic: settings.topic,
    partition: PARTITION,
    groupId: consumer["group.id"] ?? settings.groupId,
    clientId: consumer["client.id"] ?? crypto.randomUUID(),
    security: Object.fromEntries(
      Object.entries(consumer).filter(
        ([k]) => k === "security.protocol" || k.startsWith("sasl.") || k.startsWith("ssl."),
      ),
    ),
  };
}

/** Opens the signal topic's reader; a refused security setting names its signal.consumer.* key. */
export function openSignalTopic(
  settings: KafkaSignalSettings,
  open: (options: TopicReaderOptions) => TopicReader,
): TopicReader {
  try {
    return open(signalTopicReaderOptions(settings));
  } catch (err) {
    if (err instanceof ConfigError && !err.setting.startsWith(SIGNAL_CONSUMER_PREFIX))
      throw new ConfigError(SIGNAL_CONSUMER_PREFIX + err.setting, err.value, err.allowed);
    throw err;
  }
}

export class KafkaSignalChannel implements SignalChannel {
  readonly name = "kafka";
  /** The next offset to fetch; null until read from the group's committed offset. */
  private position: number | null = null;
  /** The offset after the signals the last read() returned. */
  private returned: number | null = null;
  /** The offset after the signals acted on (those returned before the last read()); committed next. */
  private handedOn: number | null = null;
  private committed: number | null = null;
  private arrived: Signal[] = [];
  private fetching: Promise<void> | null = null;
  private lastProblem = "";
  private closed = false;

  constructor(
    private readonly settings: KafkaSignalSettings,
    /** topic.prefix: the key of the records meant for this connector. */
    private readonly connectorName: string,
    private readonly reader: TopicReader,
    private readonly log: Logger,
  ) {
    log.info({ topic: settings.topic }, `Subscribing to signals topic '${settings.topic}'`);
  }

  /** The signals fetched since the last call; starts the next fetch in the background. */
  async read(): Promise<Signal[]> {
    // The dispatcher acts on what one read returns before it reads again.
    this.handedOn = this.returned;
    const signals = this.arrived;
    this.arrived = [];
    this.returned = this.position;
    if (this.fetching === null && !this.closed)
      this.fetching = this.fetchNext().finally(() => {
        this.fetching = null;
      });
    return signals;
  }

  /** Reads from just after `offset` on (Debezium seeks there when a snapshot's progress names a signal). */
  seek(offset: number): void {
    this.position = offset + 1;
    this.arrived = [];
    this.returned = this.position;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.fetching;
    this.handedOn = this.returned;
    await this.commit().catch((err: unknown) => this.problem(err));
    await this.reader.close();
  }

  private async fetchNext(): Promise<void> {
    try {
      await this.commit();
      if (this.position === null) {
        const committed = await this.reader.committedOffset();
        this.position = committed ?? (await this.reader.earliestOffset());
        this.committed = committed ?? null;
        this.returned ??= this.position;
      }
      const from = this.position;
      const records = await this.reader.fetch(from, this.settings.pollTimeoutMs);
      if (this.closed || this.position !== from) return; // sought meanwhile: these are not wanted
      for (const record of records) {
        const signal = this.signalOf(record.key, record.value);
        if (signal) this.arrived.push({ ...signal, channelOffset: record.offset });
        this.position = record.offset + 1;
      }
      this.lastProblem = "";
    } catch (err) {
      this.problem(err);
    }
  }

  private signalOf(key: Uint8Array | null, value: Uint8Array | null): Signal | null {
    const keyText = key === null ? null : decoder.decode(key);
    if (keyText !== this.connectorName) {
      this.log.info(`Signal key '${keyText}' doesn't match the connector's name '${this.connectorName}'`);
      return null;
    }
    const text = value === null ? "" : decoder.decode(value);
    if (text === "") return null;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, "Skipped signal due to an error");
      return null;
    }
    const signal = signalOf(json, "kafka");
    if (typeof signal === "string") {
      this.log.error({ err: signal }, "Skipped signal due to an error");
      return null;
    }
    return signal;
  }

  private async commit(): Promise<void> {
    const offset = this.handedOn;
    if (offset === null || offset === this.committed) return;
    await this.reader.commit(offset);
    this.committed = offset;
  }

  /** A failed fetch or commit: said once (not at every poll while it lasts); the next read tries again. */
  private problem(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.log.warn({ topic: this.settings.topic, err: message }, "could not read the signal topic; trying again");
  }
}
