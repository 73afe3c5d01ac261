// The partitions a sink connector reads: those of its `topics`, or of the topics `topics.regex`
// matches now, in topic order. The worker splits them among the tasks; the offsets API lists them.
import type { Broker } from "../../../broker/broker.ts";
import { autoCreatedTopic } from "../../../broker/broker.ts";
import type { TopicPartition } from "../../api/connector.ts";
import { topicsMatching } from "./connector-config.ts";

/** `createMissing`: a named topic that does not exist is created, as a consumer subscribing to it makes a broker with auto-creation do. */
export async function sinkPartitions(broker: Broker, topics: string[], regex: string, createMissing: boolean): Promise<TopicPartition[]> {
  const names = regex ? (await topicsMatching(regex, await broker.listTopics())).sort() : topics;
  const all: TopicPartition[] = [];
  for (const topic of names) {
    let description = await broker.describeTopic(topic);
    if (!description && createMissing) {
      await broker.createTopic(autoCreatedTopic(topic));
      description = await broker.describeTopic(topic);
    }
    for (let p = 0; p < (description?.partitions ?? 0); p++) all.push({ topic, partition: p });
  }
  return all;
}
