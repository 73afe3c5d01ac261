// The partitions a sink connector reads: those of its `topics`, or of the topics `topics.regex`
// matches now, in topic order. The worker splits them among the tasks; the offsets API lists them.
// Each task asks again as often as Kafka's consumer refreshes its metadata, to read what appeared.
import type { Broker } from "../../../broker/broker.ts";
import { autoCreatedTopic } from "../../../broker/broker.ts";
import type { TopicPartition } from "../../api/connector.ts";
import { topicsMatching } from "./connector-config.ts";

/** `createMissing`: a named topic that does not exist is created, as a consumer subscribing to it makes a broker with auto-creation do. */
export async function sinkPartitions(
  broker: Broker,
  topics: string[],
  regex: string,
  createMissing: boolean,
): Promise<TopicPartition[]> {
  const names = regex ? (await topicsMatching(regex, await broker.listTopics())).sort() : topics;
  // One question for all of them, however many topics the connector reads (it was three requests a topic).
  const counts = await broker.partitionCounts(names);
  const missing = names.filter((topic) => !counts.has(topic));
  if (createMissing && missing.length > 0) {
    for (const topic of missing) await broker.createTopic(autoCreatedTopic(topic));
    for (const [topic, count] of await broker.partitionCounts(missing)) counts.set(topic, count);
  }
  const all: TopicPartition[] = [];
  for (const topic of names) for (let p = 0; p < (counts.get(topic) ?? 0); p++) all.push({ topic, partition: p });
  return all;
}

/** Kafka's consumer default: a new topic or partition is noticed within five minutes. */
export const METADATA_MAX_AGE_MS = 300_000;

/**
 * How often a sink task asks for its partitions again: the consumer's metadata.max.age.ms, from the
 * connector's `consumer.override.` settings, else the worker's `consumer.` ones (Kafka Connect's
 * client overrides), else Kafka's default. A value that is no number fails as the consumer would.
 */
export function metadataMaxAgeMs(connectorConfig: Record<string, string>, workerExtra: Record<string, string>): number {
  const given = connectorConfig["consumer.override.metadata.max.age.ms"] ?? workerExtra["consumer.metadata.max.age.ms"];
  if (given === undefined) return METADATA_MAX_AGE_MS;
  const value = given.trim();
  if (!/^-?\d+$/.test(value))
    throw new Error(`Invalid value ${given} for configuration metadata.max.age.ms: Not a number of type LONG`);
  if (Number(value) < 0)
    throw new Error(`Invalid value ${value} for configuration metadata.max.age.ms: Value must be at least 0`);
  return Number(value);
}

/** Task `index` of `tasksMax` reads every tasksMax-th partition of the connector's, from its index on. */
export const taskShare = (all: TopicPartition[], index: number, tasksMax: number): TopicPartition[] =>
  all.filter((_, i) => i % tasksMax === index);
