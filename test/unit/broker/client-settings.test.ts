// Kafka's client settings read into the Kafka broker client's options: defaults as Kafka's (and Kafka
// Connect's for task clients), values refused with the messages Kafka's clients give (taken from
// Kafka 4.1.1's ProducerConfig/ConsumerConfig), settings Sluice cannot honour refused or warned about by name.
import { describe, expect, test } from "bun:test";
import {
  checkClientSettings,
  clientLevelTuning,
  consumerTuning,
  producerTuning,
  storeClientSettings,
  taskClientTuning,
} from "#src/broker/client-settings.ts";

const problem = (kind: "producer" | "consumer" | "admin", props: Record<string, string>) =>
  Object.fromEntries(checkClientSettings(kind, props).problems);

describe("producer settings", () => {
  test("Kafka's defaults: no compression, acks=all, idempotent, 1 MiB requests; Sluice's 16 MiB buffer.memory", () => {
    expect(producerTuning({})).toEqual({
      compression: "none",
      acks: -1,
      idempotent: true,
      maxRequestSize: 1048576,
      deliveryTimeoutMs: 120000,
      transactionTimeoutMs: 60000,
      bufferMemory: 16777216,
    });
    expect(producerTuning({ "buffer.memory": "131072" }).bufferMemory).toBe(131072);
  });

  test("each codec, client.id and request.timeout.ms are taken", () => {
    for (const codec of ["gzip", "snappy", "lz4", "zstd"])
      expect(producerTuning({ "compression.type": codec }).compression).toBe(codec as never);
    expect(producerTuning({ "client.id": "me", "request.timeout.ms": "5000" })).toMatchObject({
      clientId: "me",
      requestTimeoutMs: 5000,
    });
  });

  test("bad values get Kafka's messages", () => {
    expect(problem("producer", { "compression.type": "ZSTD" })).toEqual({
      "compression.type":
        "Invalid value ZSTD for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd",
    });
    expect(problem("producer", { acks: "2" }).acks).toBe(
      "Invalid value 2 for configuration acks: String must be one of: all, -1, 0, 1",
    );
    expect(problem("producer", { "compression.gzip.level": "12" })["compression.gzip.level"]).toBe(
      "Invalid value 12 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1",
    );
    expect(problem("producer", { "compression.zstd.level": "40" })["compression.zstd.level"]).toBe(
      "Invalid value 40 for configuration compression.zstd.level: Value must be no more than 22",
    );
    expect(problem("producer", { "batch.size": "abc" })["batch.size"]).toBe(
      "Invalid value abc for configuration batch.size: Not a number of type INT",
    );
    expect(problem("producer", { "linger.ms": "-1" })["linger.ms"]).toBe(
      "Invalid value -1 for configuration linger.ms: Value must be at least 0",
    );
    expect(problem("producer", { "enable.idempotence": "maybe" })["enable.idempotence"]).toBe(
      "Invalid value maybe for configuration enable.idempotence: Expected value to be either true or false",
    );
    expect(problem("producer", { "max.in.flight.requests.per.connection": "0" })).toEqual({
      "max.in.flight.requests.per.connection":
        "Invalid value 0 for configuration max.in.flight.requests.per.connection: Value must be at least 1",
    });
  });

  test("idempotence: Kafka's cross-setting rules, and dropped when not asked for and ruled out", () => {
    expect(problem("producer", { "enable.idempotence": "true", acks: "1" }).acks).toBe(
      "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.",
    );
    expect(
      problem("producer", { "enable.idempotence": "true", "max.in.flight.requests.per.connection": "6" })[
        "max.in.flight.requests.per.connection"
      ],
    ).toBe(
      "To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is 6.",
    );
    expect(producerTuning({ acks: "1" })).toMatchObject({ acks: 1, idempotent: false });
    expect(producerTuning({ "enable.idempotence": "false" }).idempotent).toBe(false);
  });

  test("delivery.timeout.ms below linger.ms + request.timeout.ms, when given, is Kafka's error", () => {
    expect(problem("producer", { "delivery.timeout.ms": "1000" })["delivery.timeout.ms"]).toBe(
      "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms",
    );
    expect(producerTuning({ "delivery.timeout.ms": "40000" }).deliveryTimeoutMs).toBe(40000);
  });

  test("what Sluice cannot honour is refused by name; tuning it does not need is a warning", () => {
    expect(problem("producer", { "compression.gzip.level": "5" })["compression.gzip.level"]).toContain(
      "compression.gzip.level is not supported by Sluice",
    );
    // The codecs' default levels ask for nothing Sluice does not do.
    expect(problem("producer", { "compression.zstd.level": "3", "compression.gzip.level": "-1" })).toEqual({});
    expect(problem("producer", { acks: "0" }).acks).toContain("acks=0 is not supported by Sluice");
    expect(problem("producer", { "transactional.id": "t" })["transactional.id"]).toContain("not supported by Sluice");
    expect(() => producerTuning({ "partitioner.class": "x.Y" })).toThrow(
      "Invalid value x.Y for configuration partitioner.class: partitioner.class is not supported by Sluice",
    );
    const check = checkClientSettings("producer", { "linger.ms": "20", "batch.size": "65536", "foo.bar": "1" });
    expect(check.problems.size).toBe(0);
    expect(check.noEffect.map((u) => u.name)).toEqual(["linger.ms", "batch.size"]);
    expect(check.unknown).toEqual(["foo.bar"]);
    // Security settings are client-security.ts's.
    expect(checkClientSettings("producer", { "sasl.mechanism": "PLAIN", "security.protocol": "SSL" }).unknown).toEqual(
      [],
    );
  });
});

describe("consumer settings", () => {
  test("Kafka's defaults", () => {
    expect(consumerTuning({})).toEqual({
      fetchMinBytes: 1,
      fetchMaxBytes: 52428800,
      fetchMaxWaitMs: 500,
      maxPartitionFetchBytes: 1048576,
      maxPollRecords: 500,
      isolationLevel: "read_uncommitted",
      autoOffsetReset: "latest",
    });
  });

  test("values taken, and refused with Kafka's messages", () => {
    expect(
      consumerTuning({
        "isolation.level": "read_committed",
        "max.poll.records": "7",
        "fetch.min.bytes": "100",
        "auto.offset.reset": "none",
      }),
    ).toMatchObject({
      isolationLevel: "read_committed",
      maxPollRecords: 7,
      fetchMinBytes: 100,
      autoOffsetReset: "none",
    });
    expect(problem("consumer", { "isolation.level": "READ_COMMITTED" })["isolation.level"]).toBe(
      "Invalid value READ_COMMITTED for configuration isolation.level: String must be one of: read_committed, read_uncommitted",
    );
    expect(problem("consumer", { "auto.offset.reset": "foo" })["auto.offset.reset"]).toBe(
      "Invalid value foo for configuration auto.offset.reset: Invalid value `foo` for configuration auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or of the format 'by_duration:<PnDTnHnMn.nS.>'.",
    );
    expect(problem("consumer", { "max.poll.records": "0" })["max.poll.records"]).toBe(
      "Invalid value 0 for configuration max.poll.records: Value must be at least 1",
    );
    expect(problem("consumer", { "fetch.max.bytes": "x" })["fetch.max.bytes"]).toBe(
      "Invalid value x for configuration fetch.max.bytes: Not a number of type INT",
    );
    expect(problem("consumer", { "enable.auto.commit": "true" })["enable.auto.commit"]).toContain(
      "not supported by Sluice",
    );
    expect(problem("consumer", { "auto.offset.reset": "by_duration:PT1H" })["auto.offset.reset"]).toContain(
      "by_duration is not supported by Sluice",
    );
    expect(checkClientSettings("consumer", { "session.timeout.ms": "30000" }).noEffect.map((u) => u.name)).toEqual([
      "session.timeout.ms",
    ]);
    // Fetched batches' CRCs are always checked: Kafka's default says what Sluice does, false is warned about.
    expect(checkClientSettings("consumer", { "check.crcs": "true" }).noEffect).toEqual([]);
    expect(checkClientSettings("consumer", { "check.crcs": "false" }).noEffect.map((u) => u.name)).toEqual([
      "check.crcs",
    ]);
  });
});

describe("a Connect task's clients", () => {
  test("Kafka Connect's task defaults: forever retried writes, a new sink group from the earliest offsets", () => {
    const tuning = taskClientTuning({});
    expect(tuning.producer).toEqual({
      compression: "none",
      acks: -1,
      idempotent: true,
      maxRequestSize: 1048576,
      deliveryTimeoutMs: 2147483647,
      transactionTimeoutMs: 60000,
      bufferMemory: 16777216,
    });
    expect(tuning.consumer.autoOffsetReset).toBe("earliest");
    // Connect's own request timeout (forever) is not the client's: Sluice's 30 s, with the task retrying.
    expect(tuning.producer.requestTimeoutMs).toBeUndefined();
  });

  test("the connector's overrides apply over the worker's settings", () => {
    const worker = {
      "producer.compression.type": "lz4",
      "producer.linger.ms": "10",
      "consumer.max.poll.records": "50",
    };
    const tuning = taskClientTuning(worker, {
      "producer.override.compression.type": "zstd",
      "consumer.override.isolation.level": "read_committed",
    });
    expect(tuning.producer.compression).toBe("zstd");
    expect(tuning.consumer).toMatchObject({ maxPollRecords: 50, isolationLevel: "read_committed" });
    expect(taskClientTuning(worker).producer.compression).toBe("lz4");
  });

  test("as in Kafka Connect, delivery.timeout.ms given alone is below its forever request timeout", () => {
    expect(() => taskClientTuning({}, { "producer.override.delivery.timeout.ms": "60000" })).toThrow(
      "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms",
    );
    expect(
      taskClientTuning(
        {},
        { "producer.override.delivery.timeout.ms": "60000", "producer.override.request.timeout.ms": "20000" },
      ).producer,
    ).toMatchObject({ deliveryTimeoutMs: 60000, requestTimeoutMs: 20000 });
  });

  test("connectors differing in fetch settings only share a client; in producer settings they do not", () => {
    const a = clientLevelTuning(taskClientTuning({}, { "consumer.override.max.poll.records": "5" }));
    const b = clientLevelTuning(taskClientTuning({}, {}));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const c = clientLevelTuning(taskClientTuning({}, { "producer.override.compression.type": "gzip" }));
    expect(JSON.stringify(c)).not.toBe(JSON.stringify(b));
  });
});

describe("a schema registry's store clients (kafkastore.*)", () => {
  test("each client takes the settings it knows; the registry's own choices stay; the rest is warned about", () => {
    const { tuning, warnings } = storeClientSettings({
      "compression.type": "snappy",
      "max.poll.records": "10",
      acks: "1",
      "linger.ms": "5",
      "client.id": "store",
      "sasl.mechanism": "PLAIN",
      "no.such.setting": "1",
    });
    expect(tuning.producer).toMatchObject({ compression: "snappy", acks: -1, idempotent: true, clientId: "store" });
    expect(tuning.admin.clientId).toBe("store");
    expect(warnings).toEqual([
      "Setting kafkastore.max.poll.records has no effect in Sluice: the registry reads its topic with fetch settings of its own",
      "Setting kafkastore.acks has no effect in Sluice: the registry's writes wait for every in-sync replica, as Confluent's KafkaStore sets acks=-1",
      "Unknown setting kafkastore.no.such.setting is ignored",
      "Setting kafkastore.linger.ms has no effect in Sluice: Sluice's clients write what they have at once (a task's poll, a registry's record), without waiting for more to batch",
    ]);
  });

  test("a bad value is Kafka's error, named with its prefix", () => {
    expect(() => storeClientSettings({ "compression.type": "brotli" })).toThrow(
      "Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd",
    );
    let error: unknown;
    try {
      storeClientSettings({ "request.timeout.ms": "x" });
    } catch (err) {
      error = err;
    }
    expect((error as { setting?: string } | undefined)?.setting).toBe("kafkastore.request.timeout.ms");
  });
});
