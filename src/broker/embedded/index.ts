// Embedded broker: the default Broker when no Kafka is configured.
export { EmbeddedBroker, type EmbeddedBrokerOptions } from "./embedded-broker.ts";
export type { CompactionResult } from "./compaction.ts";
export { repairPartitionLog, type LogRepair } from "./log-repair.ts";
