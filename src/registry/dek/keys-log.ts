// The DEK registry's durable log: the `_dek_registry_keys` topic (dek.registry.topic), tailed into
// DekState by the same one-writer log as `_schemas` (../store/topic-log.ts).
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";
import { TopicLog, type LogCodec, type TopicLogOptions } from "../store/topic-log.ts";
import { decodeRecord, encodeKey, encodeValue, idKey, type DekRecord } from "./records.ts";
import { DekState } from "./state.ts";
import type { DekLog } from "./service.ts";

const keysCodec: LogCodec<DekRecord, DekState> = {
  name: "DEK registry keys",
  log: logger("dek-registry"),
  encode: (record) => ({ key: encodeKey(record), value: encodeValue(record) }),
  refuse(record, key, value) {
    // A key reused as read names the same id; a record replay would read as another one is a bug.
    const read = decodeRecord(key, value);
    return read && idKey(read) === idKey(record) && (read.value === null) === (record.value === null)
      ? undefined
      : `refusing to write a ${record.type} record that replay would not apply as written`;
  },
  summary: (state) => ({ keks: state.count("KEK"), deks: state.count("DEK") }),
  writeFailed: (reason) => `Error while writing a key to the backend Kafka store: ${reason}`,
  badTopic: (topic, problem) =>
    problem === "not compacted"
      ? `The retention policy of the topic ${topic} is incorrect. You must configure the topic to 'compact' cleanup policy to avoid Kafka deleting your keys after a week`
      : `The topic ${topic} should have only 1 partition but has ${problem.partitions}`,
};

export function keysLog(broker: Broker, options: TopicLogOptions): DekLog {
  return new TopicLog(broker, new DekState(), options, keysCodec);
}
