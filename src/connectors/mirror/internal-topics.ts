// MM2's own topics on a cluster (heartbeats, checkpoints), created as Kafka's MirrorUtils creates them:
// one partition, compacted, with the connector's replication factor (capped by the live brokers, as
// Sluice's client caps every internal topic). One that exists already is left as it is.
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";

const log = logger("mirror");

export async function createSinglePartitionCompactedTopic(
  client: Broker,
  topic: string,
  replicationFactor: number,
): Promise<void> {
  const created = await client.createTopic({
    name: topic,
    partitions: 1,
    replicationFactor,
    config: { "cleanup.policy": "compact" },
  });
  if (created) log.info({ topic }, `Created topic '${topic}'`);
  else log.debug({ topic }, `Unable to create topic '${topic}' since it already exists.`);
}

/**
 * Waits `ms`, or less once `stopped()` says so: Sluice stops a task after its poll returns, so a poll
 * waits in short steps (Kafka's tasks are woken by stop() from another thread instead).
 */
export async function waitUnlessStopped(ms: number, stopped: () => boolean, stepMs = 100): Promise<void> {
  for (const until = Date.now() + ms; !stopped() && Date.now() < until; )
    await Bun.sleep(Math.min(stepMs, until - Date.now())); // bounded step: re-checks the stop flag
}
