// The registry's durable log: the `_schemas` topic, tailed into RegistryState (./topic-log.ts).
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";
import { encodeKey, encodeValue, replayable, type RegistryRecord } from "./records.ts";
import type { RegistryState } from "./state.ts";
import { TopicLog, type LogCodec, type TopicLogOptions } from "./topic-log.ts";

const schemaCodec: LogCodec<RegistryRecord, RegistryState> = {
  name: "schemas",
  log: logger("schema-log"),
  encode: (record) => ({ key: encodeKey(record), value: encodeValue(record) }),
  refuse: (record, key, value) =>
    replayable(record, key, value)
      ? undefined
      : `refusing to write a ${record.keytype} record that replay would not apply as written (subject ${"subject" in record ? JSON.stringify(record.subject) : "none"})`,
  summary: (state) => ({ schemas: state.maxId }),
  writeFailed: (reason) => `Error while registering the schema in the backend Kafka store: ${reason}`,
  badTopic: (topic, problem) =>
    problem !== "not compacted"
      ? `The schema topic ${topic} should have only 1 partition but has ${problem.partitions}`
      : `The retention policy of the schema topic ${topic} is incorrect. You must configure the topic to 'compact' cleanup policy to avoid Kafka deleting your schemas after a week. Refer to Kafka documentation for more details on cleanup policies`,
};

export class SchemaLog extends TopicLog<RegistryRecord, RegistryState> {
  constructor(broker: Broker, state: RegistryState, options: TopicLogOptions) {
    super(broker, state, options, schemaCodec);
  }
}
