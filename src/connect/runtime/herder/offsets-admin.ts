// The offsets API (KIP-875) of a stopped connector: reading, altering and resetting source offsets
// (in the worker's offset store) and sink offsets (the consumer group `connect-<name>`).
import type { Broker } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import { sinkPartitions } from "../worker/sink-partitions.ts";
import type { Worker } from "../worker/worker.ts";
import type { OffsetsView } from "./herder.ts";

const log = logger("herder");

export function notStopped(name: string): ConnectRestError {
  return connectErrors.badRequest(
    `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${name}/stop' endpoint`,
  );
}

/** Kafka's answer to an alter or reset: whether the connector said it had nothing outside Connect to change. */
export function alteredMessage(action: "altered" | "reset", ownedByConnector: boolean): string {
  return ownedByConnector
    ? `The offsets for this connector have been ${action} successfully`
    : `The Connect framework-managed offsets for this connector have been ${action} successfully. However, if this connector manages offsets externally, they will need to be manually ${action === "altered" ? "altered" : "reset"} in the system that the connector uses.`;
}

/** The committed positions of a sink connector's group, for the partitions of its topics. */
export async function sinkOffsets(
  broker: Broker,
  name: string,
  config: Record<string, string>,
): Promise<{ partition: { kafka_topic: string; kafka_partition: number }; offset: { kafka_offset: number } }[]> {
  const out: { partition: { kafka_topic: string; kafka_partition: number }; offset: { kafka_offset: number } }[] = [];
  const topics = (config.topics ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  for (const tp of await sinkPartitions(broker, topics, config["topics.regex"] ?? "", false)) {
    const offset = (await broker.committedOffsets(`connect-${name}`, tp.topic)).get(tp.partition);
    if (offset !== undefined)
      out.push({
        partition: { kafka_topic: tp.topic, kafka_partition: tp.partition },
        offset: { kafka_offset: offset },
      });
  }
  return out;
}

/**
 * Validates and writes offsets (null = reset). Returns the connector's alterOffsets answer: true when
 * it has nothing outside Connect to alter. `onSinkWrite` hears of each sink partition written.
 */
export async function writeConnectorOffsets(
  worker: Worker,
  name: string,
  config: Record<string, string>,
  offsets: OffsetsView["offsets"],
  onSinkWrite: (topic: string, partition: number, reset: boolean) => void = () => undefined,
): Promise<boolean> {
  const isSource = worker.connectorType(config["connector.class"]!) === "source";
  const parsed = isSource ? [] : parseSinkOffsets(offsets);
  const connector = worker.newConnector(config["connector.class"]!);
  let handled = false;
  if (connector.alterOffsets) {
    const byPartition = new Map(offsets.map((o) => [o.partition, o.offset] as const));
    try {
      handled = connector.alterOffsets(worker.resolve(config), byPartition) === true;
    } catch (err) {
      // A connector refusing the offsets: the caller's offsets are wrong (Kafka answers its ConnectException 500).
      throw new ConnectRestError(400, err instanceof Error ? err.message : String(err));
    }
  }
  const written = () => {
    const reset = offsets.every((o) => o.offset === null);
    log.info(
      { connector: name, partitions: offsets.length },
      `offsets of connector ${name} ${reset ? "reset" : "altered"} (${offsets.length} partition${offsets.length === 1 ? "" : "s"})`,
    );
    return handled;
  };
  if (isSource) {
    await worker.options.offsets.useTopic?.(name, config["offsets.storage.topic"]);
    await worker.options.offsets.set(name, offsets);
    return written();
  }
  const broker = worker.options.broker;
  for (const { offset } of parsed) {
    // Kafka's admin client refuses negative positions; the request then fails as a whole.
    if (offset !== null && offset < 0)
      throw new ConnectRestError(400, `Failed to modify offsets for sink connector ${name}`);
  }
  for (const { topic, partition, offset } of parsed) {
    // A reset (null) goes back to the earliest record, as deleting the group would.
    const target = offset === null ? ((await broker.startOffsets(topic))[partition] ?? 0) : offset;
    await broker.commitOffsets(`connect-${name}`, topic, [{ partition, offset: target }]);
    onSinkWrite(topic, partition, offset === null);
  }
  return written();
}

/** Sink offsets as Kafka's SinkUtils reads them, with its messages for what it refuses. */
function parseSinkOffsets(
  offsets: OffsetsView["offsets"],
): { topic: string; partition: number; offset: number | null }[] {
  const integer = (value: unknown, what: "partition" | "offset"): number => {
    const text = typeof value === "number" || typeof value === "string" ? String(value) : undefined;
    if (text === undefined || !/^[+-]?\d+$/.test(text.trim())) {
      const kind = what === "partition" ? "Partition" : "Offset";
      throw connectErrors.badRequest(
        `Failed to parse the following Kafka ${what} value in the provided offsets: '${String(value)}'. ${kind} values for sink connectors need to be integers.`,
      );
    }
    return Number(text);
  };
  return offsets.map(({ partition, offset }) => {
    if (partition === null || typeof partition !== "object")
      throw connectErrors.badRequest("The partition for a sink connector offset cannot be null or missing");
    if (!("kafka_topic" in partition) || !("kafka_partition" in partition)) {
      throw connectErrors.badRequest(
        "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
      );
    }
    const topic = partition.kafka_topic;
    if (typeof topic !== "string")
      throw connectErrors.badRequest("Kafka topic names must be valid strings and may not be null");
    const p = integer(partition.kafka_partition, "partition");
    if (offset === null || offset === undefined) return { topic, partition: p, offset: null };
    if (!("kafka_offset" in offset))
      throw connectErrors.badRequest(
        "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
      );
    return { topic, partition: p, offset: integer(offset.kafka_offset, "offset") };
  });
}
