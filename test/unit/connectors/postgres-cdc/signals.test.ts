// Debezium's signals as Sluice reads them: the JSON of a signal, the file channel (lines taken and
// removed), the dispatcher (interval, routing by type, Debezium's warnings), the `log` signal and the
// execute-snapshot request, the blocking snapshot's tables and offsets, and the signal settings.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blockingSelection, blockingSnapshotOffset } from "#src/connectors/postgres-cdc/blocking-snapshot.ts";
import { parsePostgresCdcConfig, postgresCdcSettings } from "#src/connectors/postgres-cdc/config.ts";
import {
  executeSnapshotHandler,
  logSignalHandler,
  SignalDispatcher,
  type SnapshotRequest,
  snapshotRequestOf,
} from "#src/connectors/postgres-cdc/signals/dispatcher.ts";
import { FileSignalChannel, parseLine } from "#src/connectors/postgres-cdc/signals/file-channel.ts";
import {
  KafkaSignalChannel,
  openSignalTopic,
  signalTopicReaderOptions,
} from "#src/connectors/postgres-cdc/signals/kafka-channel.ts";
import type { TopicReader } from "#src/connect/api/connector.ts";
import { openTopicReader } from "#src/connect/runtime/worker/topic-reader.ts";
import { type Signal, type SignalChannel, signalOf } from "#src/connectors/postgres-cdc/signals/signal.ts";
import type { Logger } from "#src/platform/log.ts";
import { ConfigError } from "#src/platform/settings.ts";

/** A logger that keeps what it was told, by level (only the message). */
function recordingLog(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at =
    (level: string) =>
    (first: unknown, second?: unknown): void => {
      lines.push({ level, message: typeof first === "string" ? first : String(second ?? "") });
    };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } as never;
}

const signal = (type: string, data: Record<string, unknown> | null = {}, id = "s1"): Signal => ({
  id,
  type,
  data,
  channel: "file",
});

describe("a signal's JSON", () => {
  test("id, type and data; data as an object or as JSON text (as the signalling table holds it)", () => {
    expect(signalOf({ id: "a", type: "log", data: { message: "hi" } }, "kafka")).toEqual({
      id: "a",
      type: "log",
      data: { message: "hi" },
      channel: "kafka",
    });
    expect(signalOf({ id: 7, type: "log", data: '{"message":"hi"}' }, "source")).toMatchObject({
      id: "7",
      data: { message: "hi" },
    });
    expect(signalOf({ id: "a", type: "log" }, "file")).toMatchObject({ data: null });
  });

  test("what is not a signal says why", () => {
    expect(signalOf([], "file")).toBe("a signal must be a JSON object");
    expect(signalOf({ type: "log" }, "file")).toBe("a signal needs an id");
    expect(signalOf({ id: "a" }, "file")).toBe("a signal needs a type");
    expect(signalOf({ id: "a", type: "log", data: [1] }, "file")).toBe("a signal's data must be a JSON object");
    expect(signalOf({ id: "a", type: "log", data: "not json" }, "file")).toBe("a signal's data must be a JSON object");
    expect(typeof parseLine("{nope")).toBe("string");
  });
});

describe("the file channel", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-file-signals-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("takes every signal line, skips a bad one with a warning, and leaves the file empty", async () => {
    const file = join(dir, "signals.txt");
    writeFileSync(
      file,
      [
        '{"id":"1","type":"log","data":{"message":"one"}}',
        "",
        "not json",
        '{"id":"2","type":"execute-snapshot","data":{"data-collections":["public.a"],"type":"blocking"}}',
        "",
      ].join("\n"),
    );
    const log = recordingLog();
    const channel = new FileSignalChannel(file, log);
    const signals = await channel.read();
    expect(signals.map((s) => [s.id, s.type, s.channel])).toEqual([
      ["1", "log", "file"],
      ["2", "execute-snapshot", "file"],
    ]);
    expect(readFileSync(file, "utf8")).toBe("");
    expect(
      log.lines.some((l) => l.level === "warn" && l.message.startsWith("Skipped signal due to a parse error")),
    ).toBe(true);
    expect(await channel.read()).toEqual([]);
  });

  test("a last line without newline is taken when it is whole JSON, kept while it is still being written", async () => {
    const file = join(dir, "partial.txt");
    const channel = new FileSignalChannel(file, recordingLog());
    writeFileSync(file, '{"id":"1","type":"log","data":{}}\n{"id":"2","ty');
    expect((await channel.read()).map((s) => s.id)).toEqual(["1"]);
    expect(readFileSync(file, "utf8")).toBe('{"id":"2","ty');
    writeFileSync(file, '{"id":"2","type":"log","data":{}}');
    expect((await channel.read()).map((s) => s.id)).toEqual(["2"]);
    expect(readFileSync(file, "utf8")).toBe("");
  });

  test("no file yet: no signals", async () => {
    expect(await new FileSignalChannel(join(dir, "absent.txt"), recordingLog()).read()).toEqual([]);
  });
});

/** A channel handing out the signals put into it. */
function queueChannel(): SignalChannel & { queue: Signal[]; reads: number } {
  const channel = {
    name: "file" as const,
    queue: [] as Signal[],
    reads: 0,
    async read() {
      channel.reads++;
      return channel.queue.splice(0);
    },
    async close() {},
  };
  return channel;
}

interface MemoryTopic {
  records: { key: string | null; value: string | null }[];
  committed: number | undefined;
  closed: boolean;
  reader: TopicReader;
}

/** One topic partition in memory, with a committed offset (the pure logic's stand-in for Kafka). */
function memoryTopic(records: MemoryTopic["records"], committed?: number): MemoryTopic {
  const encode = (text: string | null) => (text === null ? null : new TextEncoder().encode(text));
  const topic: MemoryTopic = {
    records,
    committed,
    closed: false,
    reader: {
      fetch: async (offset) =>
        topic.records.slice(offset).map((r, i) => ({ offset: offset + i, key: encode(r.key), value: encode(r.value) })),
      committedOffset: async () => topic.committed,
      earliestOffset: async () => 0,
      commit: async (offset) => {
        topic.committed = offset;
      },
      close: async () => {
        topic.closed = true;
      },
    },
  };
  return topic;
}

describe("the kafka channel", () => {
  const settings = { topic: "shop-signal", bootstrapServers: ["k:9092"], groupId: "g", pollTimeoutMs: 0, consumer: {} };
  const value = (id: string, type = "log") => JSON.stringify({ id, type, data: { message: id } });
  /** Reads until the background fetch has handed something on (bounded). */
  async function readSome(channel: KafkaSignalChannel): Promise<Signal[]> {
    for (let i = 0; i < 100; i++) {
      const signals = await channel.read();
      if (signals.length > 0) return signals;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return [];
  }

  test("reads from the group's committed offset; records keyed for another connector and empty ones are skipped", async () => {
    const topic = memoryTopic(
      [
        { key: "shop", value: value("old") },
        { key: "shop", value: value("1") },
        { key: "other", value: value("x") },
        { key: "shop", value: "" },
        { key: "shop", value: "{broken" },
        { key: "shop", value: value("2") },
      ],
      1,
    );
    const log = recordingLog();
    const channel = new KafkaSignalChannel(settings, "shop", topic.reader, log);
    expect((await readSome(channel)).map((s) => [s.id, s.channel, s.channelOffset])).toEqual([
      ["1", "kafka", 1],
      ["2", "kafka", 5],
    ]);
    expect(log.lines.map((l) => [l.level, l.message])).toContainEqual([
      "info",
      "Signal key 'other' doesn't match the connector's name 'shop'",
    ]);
    expect(log.lines.map((l) => [l.level, l.message])).toContainEqual(["error", "Skipped signal due to an error"]);
  });

  test("read() never waits on Kafka: what a fetch brings is handed on by a later read", async () => {
    let release: (() => void) | undefined;
    const topic = memoryTopic([{ key: "shop", value: value("1") }]);
    const slow: TopicReader = {
      ...topic.reader,
      fetch: async (offset, wait) => {
        await new Promise<void>((resolve) => (release = resolve));
        return topic.reader.fetch(offset, wait);
      },
    };
    const channel = new KafkaSignalChannel(settings, "shop", slow, recordingLog());
    expect(await channel.read()).toEqual([]); // the fetch hangs; read() does not
    for (let i = 0; i < 100 && release === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
    release!();
    expect((await readSome(channel)).map((s) => s.id)).toEqual(["1"]);
  });

  test("commits what was acted on: the signals a read returned, once the next read comes, and on close", async () => {
    const topic = memoryTopic([{ key: "shop", value: value("1") }]);
    const channel = new KafkaSignalChannel(settings, "shop", topic.reader, recordingLog());
    expect((await readSome(channel)).map((s) => s.id)).toEqual(["1"]);
    expect(topic.committed === undefined || topic.committed === 0).toBe(true); // not acted on yet
    topic.records.push({ key: "shop", value: value("2") });
    expect((await readSome(channel)).map((s) => s.id)).toEqual(["2"]);
    expect(topic.committed).toBe(1); // "1" was acted on before this read
    await channel.close();
    expect([topic.committed, topic.closed]).toEqual([2, true]);
    // A new channel (the task restarted) goes on after them.
    topic.records.push({ key: "shop", value: value("3") });
    const again = new KafkaSignalChannel(settings, "shop", topic.reader, recordingLog());
    expect((await readSome(again)).map((s) => s.id)).toEqual(["3"]);
  });
});

describe("the dispatcher", () => {
  test("reads the channels at once, then at most every signal.poll.interval.ms", async () => {
    let now = 1_000;
    const channel = queueChannel();
    const dispatcher = new SignalDispatcher([channel], 5000, recordingLog(), () => now);
    await dispatcher.poll();
    await dispatcher.poll();
    expect(channel.reads).toBe(1);
    now += 4999;
    await dispatcher.poll();
    expect(channel.reads).toBe(1);
    now += 1;
    await dispatcher.poll();
    expect(channel.reads).toBe(2);
  });

  test("routes each signal to its type's handler; an unknown type and a failing handler are Debezium's warnings", async () => {
    const channel = queueChannel();
    const log = recordingLog();
    const seen: string[] = [];
    const dispatcher = new SignalDispatcher([channel], 0, log)
      .on("a", (s) => {
        seen.push(`a:${s.id}`);
      })
      .on("b", () => {
        throw new Error("boom");
      });
    channel.queue.push(signal("a", {}, "1"), signal("mystery", {}, "2"), signal("b", {}, "3"), signal("a", {}, "4"));
    await dispatcher.poll();
    expect(seen).toEqual(["a:1", "a:4"]);
    const warnings = log.lines.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings).toEqual([
      "Signal '2' has been received but the type 'mystery' is not recognized",
      "Action b failed. The signal SignalRecord{id='3', type='b', data='{}'} may not have been processed.",
    ]);
  });

  test("a channel that cannot be read is a warning; the others are still read", async () => {
    const broken: SignalChannel = {
      name: "kafka",
      read: async () => {
        throw new Error("no broker");
      },
      close: async () => {},
    };
    const channel = queueChannel();
    channel.queue.push(signal("a"));
    const seen: Signal[] = [];
    const log = recordingLog();
    await new SignalDispatcher([broken, channel], 0, log).on("a", (s) => void seen.push(s)).poll();
    expect(seen).toHaveLength(1);
    expect(log.lines.some((l) => l.level === "warn" && l.message.includes("kafka signal channel"))).toBe(true);
  });
});

describe("the log signal", () => {
  test("its message at INFO, the first {} replaced by the current offset", () => {
    const log = recordingLog();
    const handler = logSignalHandler(log, () => ({ lsn_proc: 10, lsn: 10, txId: 5 }));
    handler(signal("log", { message: "Signal message at offset {}" }));
    expect(log.lines).toEqual([{ level: "info", message: "Signal message at offset {lsn_proc=10, lsn=10, txId=5}" }]);
  });

  test("<none> without an offset; a warning without a message", () => {
    const log = recordingLog();
    logSignalHandler(log, () => null)(signal("log", { message: "at {}" }));
    logSignalHandler(log, () => null)(signal("log", {}, "x"));
    expect(log.lines[0]).toEqual({ level: "info", message: "at <none>" });
    expect(log.lines[1]!.level).toBe("warn");
    expect(log.lines[1]!.message).toContain("the requested field 'message' is missing from data");
  });
});

describe("execute-snapshot", () => {
  test("goes to the handler of its type (incremental when none is given), with Debezium's INFO line", async () => {
    const log = recordingLog();
    const requests: SnapshotRequest[] = [];
    const handler = executeSnapshotHandler(log, {
      blocking: (r) => void requests.push(r),
      incremental: (r) => void requests.push(r),
    });
    await handler(
      signal("execute-snapshot", {
        "data-collections": [" public.a ", "public.b"],
        type: "BLOCKING",
        "additional-conditions": [{ "data-collection": "public.a", filter: "SELECT * FROM public.a WHERE id > 1" }],
      }),
    );
    await handler(signal("execute-snapshot", { "data-collections": ["public.c"] }));
    expect(requests.map((r) => [r.type, r.dataCollections])).toEqual([
      ["blocking", ["public.a", "public.b"]],
      ["incremental", ["public.c"]],
    ]);
    expect(requests[0]!.additionalConditions).toEqual([
      { dataCollection: "public.a", filter: "SELECT * FROM public.a WHERE id > 1" },
    ]);
    expect(log.lines[0]!.message).toBe(
      "Requested 'BLOCKING' snapshot of data collections '[public.a, public.b]' with additional conditions '[AdditionalCondition{dataCollection=public.a, filter='SELECT * FROM public.a WHERE id > 1'}]' and surrogate key 'PK of table will be used'",
    );
  });

  test("without data-collections, with a non-string one or of an unknown type: Debezium's warning, nothing done", () => {
    const log = recordingLog();
    expect(snapshotRequestOf(signal("execute-snapshot", {}), log)).toBeNull();
    expect(snapshotRequestOf(signal("execute-snapshot", { "data-collections": [1] }), log)).toBeNull();
    expect(snapshotRequestOf(signal("execute-snapshot", { "data-collections": ["a"], type: "fast" }), log)).toBeNull();
    expect(log.lines.map((l) => l.message)).toEqual([
      "Execute snapshot signal '{}' has arrived but the requested field 'data-collections' is missing from data or is empty",
      `Execute snapshot signal '{"data-collections":[1]}' has arrived but the requested field 'data-collections' contains a non-string data collection`,
      "Detected an unexpected snapshot type 'fast'. Signal will be skipped.",
    ]);
  });
});

describe("a blocking snapshot", () => {
  const request = (dataCollections: string[], conditions: { dataCollection: string; filter: string }[] = []) =>
    snapshotRequestOf(
      signal("execute-snapshot", {
        type: "blocking",
        "data-collections": dataCollections,
        "additional-conditions": conditions.map((c) => ({ "data-collection": c.dataCollection, filter: c.filter })),
      }),
      recordingLog(),
    )!;

  test("reads the tables its data-collections match: whole names, ignoring case, plain or quoted, lists in one entry", () => {
    const selection = blockingSelection(request(["PUBLIC.orders", 'inv\\.item.*,"other"."T"']));
    const includes = (schema: string, table: string) => selection.includes({ schema, table });
    expect(includes("public", "orders")).toBe(true);
    expect(includes("public", "orders_old")).toBe(false);
    expect(includes("inv", "items")).toBe(true);
    expect(includes("other", "T")).toBe(true);
    expect(includes("other", "U")).toBe(false);
  });

  test("an additional condition's SELECT replaces the table's query; the overrides hook comes second", () => {
    const selection = blockingSelection(
      request(["public.a", "public.b"], [{ dataCollection: "public.a", filter: "SELECT * FROM public.a WHERE x" }]),
      (t) => (t.table === "b" ? "SELECT * FROM public.b WHERE y" : undefined),
    );
    expect(selection.select({ schema: "public", table: "a" })).toBe("SELECT * FROM public.a WHERE x");
    expect(selection.select({ schema: "public", table: "b" })).toBe("SELECT * FROM public.b WHERE y");
    expect(selection.select({ schema: "public", table: "c" })).toBeUndefined();
  });

  test("its records stand at the last streamed change, marked BLOCKING until the last", () => {
    const streamed = { lsn_proc: 100, lsn_commit: 90, lsn: 100, txId: 7, ts_usec: 1, messageType: "INSERT" };
    expect(blockingSnapshotOffset(streamed, false)).toEqual({
      ...streamed,
      snapshot: "BLOCKING",
      last_snapshot_record: false,
      snapshot_completed: false,
    });
    expect(blockingSnapshotOffset(streamed, true)).toEqual(streamed);
    // After the initial snapshot and before any change, its markers are not carried over.
    const initial = { lsn: 50, txId: 3, ts_usec: 2, snapshot: true, last_snapshot_record: true };
    expect(blockingSnapshotOffset(initial, true)).toEqual({ lsn: 50, txId: 3, ts_usec: 2 });
  });
});

describe("the signal settings", () => {
  const base = {
    "database.hostname": "localhost",
    "database.user": "u",
    "database.dbname": "d",
    "topic.prefix": "shop",
  };

  test("Debezium's defaults: the source channel, every 5 s, topic <prefix>-signal, group kafka-signal, file-signals.txt", () => {
    const { signals } = parsePostgresCdcConfig(base);
    expect([...signals.channels]).toEqual(["source"]);
    expect(signals.pollIntervalMs).toBe(5000);
    expect(signals.kafka).toMatchObject({ topic: "shop-signal", groupId: "kafka-signal", pollTimeoutMs: 0 });
    expect(signals.file).toBe("file-signals.txt");
  });

  test("the kafka channel needs its bootstrap servers, and takes signal.consumer.* security settings", () => {
    expect(() => parsePostgresCdcConfig({ ...base, "signal.enabled.channels": "kafka" })).toThrow(ConfigError);
    const { signals } = parsePostgresCdcConfig({
      ...base,
      "signal.enabled.channels": "source,kafka,file",
      "signal.kafka.bootstrap.servers": "k1:9092, k2:9092",
      "signal.consumer.security.protocol": "SASL_PLAINTEXT",
      "signal.consumer.sasl.mechanism": "PLAIN",
      "signal.consumer.sasl.jaas.config":
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";',
    });
    expect([...signals.channels]).toEqual(["source", "kafka", "file"]);
    expect(signals.kafka.bootstrapServers).toEqual(["k1:9092", "k2:9092"]);
    expect(signals.kafka.consumer["security.protocol"]).toBe("SASL_PLAINTEXT");
    expect(postgresCdcSettings.accepts("signal.consumer.ssl.truststore.location")).toBe(true);
  });

  test("the signal topic's reader: signal.consumer.group.id wins, security settings go to the client, refusals name signal.consumer.*", () => {
    const config = (extra: Record<string, string>) =>
      parsePostgresCdcConfig({
        ...base,
        "signal.enabled.channels": "kafka",
        "signal.kafka.bootstrap.servers": "k1:9092",
        ...extra,
      }).signals.kafka;
    const options = signalTopicReaderOptions(
      config({ "signal.consumer.group.id": "mine", "signal.consumer.ssl.truststore.type": "PEM" }),
    );
    expect(options).toMatchObject({ topic: "shop-signal", partition: 0, groupId: "mine" });
    expect(options.security).toEqual({ "ssl.truststore.type": "PEM" });
    // The worker's client factory refuses what a connector may not choose, named as the connector set it.
    const refused = (extra: Record<string, string>) => () => openSignalTopic(config(extra), openTopicReader);
    expect(
      refused({
        "signal.consumer.security.protocol": "SASL_SSL",
        "signal.consumer.sasl.mechanism": "OAUTHBEARER",
        "signal.consumer.sasl.oauthbearer.token.endpoint.url": "http://169.254.169.254/",
      }),
    ).toThrow(/signal\.consumer\.sasl\.oauthbearer\.token\.endpoint\.url/);
    expect(refused({ "signal.consumer.security.protocol": "SOMETHING" })).toThrow(
      /signal\.consumer\.security\.protocol/,
    );
  });

  test("a channel Sluice does not have is refused", () => {
    expect(() => parsePostgresCdcConfig({ ...base, "signal.enabled.channels": "jmx" })).toThrow(
      /signal channels are source, kafka, file/,
    );
  });
});
