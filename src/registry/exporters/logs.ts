// The exporters' durable logs: `_exporter_configs` and `_exporter_states`, each tailed into a
// NamedState by the same one-writer log as `_schemas` (../store/topic-log.ts).
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";
import { TopicLog, type LogCodec, type TopicLogOptions } from "../store/topic-log.ts";
import {
  decodeInfo,
  decodeKey,
  decodeStatus,
  encodeInfo,
  encodeKey,
  encodeStatus,
  type ExporterInfo,
  type ExporterStatus,
  type NamedRecord,
} from "./records.ts";
import { NamedState } from "./state.ts";

export type ConfigLog = TopicLog<NamedRecord<ExporterInfo>, NamedState<ExporterInfo>>;
export type StatusLog = TopicLog<NamedRecord<ExporterStatus>, NamedState<ExporterStatus>>;

const log = logger("schema-exporters");

function codec<V>(what: string, encode: (v: V) => Uint8Array): LogCodec<NamedRecord<V>, NamedState<V>> {
  return {
    name: `exporter ${what}`,
    log,
    encode: (record) => ({ key: encodeKey(record), value: record.value === null ? null : encode(record.value) }),
    refuse: (record, key) =>
      decodeKey(key) === record.name ? undefined : `refusing to write an exporter ${what} record under another name`,
    summary: (state) => ({ exporters: state.size }),
    writeFailed: (reason) => `Error while writing an exporter's ${what} to the backend Kafka store: ${reason}`,
    badTopic: (topic, problem) =>
      problem === "not compacted"
        ? `The retention policy of the topic ${topic} is incorrect. You must configure the topic to 'compact' cleanup policy to avoid Kafka deleting your exporters after a week`
        : `The topic ${topic} should have only 1 partition but has ${problem.partitions}`,
  };
}

export function configLog(broker: Broker, options: TopicLogOptions): ConfigLog {
  return new TopicLog(broker, new NamedState(decodeInfo), options, codec("configs", encodeInfo));
}

export function statusLog(broker: Broker, options: TopicLogOptions): StatusLog {
  return new TopicLog(broker, new NamedState(decodeStatus), options, codec("states", encodeStatus));
}
