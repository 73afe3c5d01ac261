// Nothing a connector config asks for is silently ignored: a setting of the original (Kafka's,
// Debezium's) that Sluice does not implement and that would change the data or the delivery is a
// validation error naming it, and creating the connector fails; one that only tunes the original, or
// a name nothing declares (with the declared name it most likely misspells), is logged once as a
// warning at create and at update. A real worker (embedded broker) and a real PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { captureLogs, logLines } from "../../fixtures/logs.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";

const logs = captureLogs();
let worker: TestConnect;
let pg: PostgresServer;
let api: ReturnType<typeof connectClient>;

/** A plugin (through the SDK, as plugin.path modules are written) whose original had settings it does not implement. */
const PLUGIN = `export default (sdk) => {
  const settings = new sdk.SettingsDefinition([
    { name: "topic", type: "string", required: true, importance: "high", doc: "Topic." },
    sdk.refused("legacy.encrypt", "this plugin does not encrypt", ["false"]),
    sdk.ignored("legacy.pool.size", "this plugin has no pool"),
  ]);
  class QuietTask extends sdk.SourceTask {
    version() { return "1.0"; }
    start() {}
    async poll() { await Bun.sleep(50); return null; }
    stop() {}
  }
  class QuietSource extends sdk.SourceConnector {
    version() { return "1.0"; }
    config() { return settings; }
    start() {}
    taskClass() { return QuietTask; }
    taskConfigs() { return [{}]; }
    stop() {}
  }
  return [QuietSource];
};
`;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-unsupported-"));
  mkdirSync(join(dir, "plugins"));
  writeFileSync(join(dir, "plugins", "quiet-source.js"), PLUGIN);
  [worker, pg] = await Promise.all([startTestConnect("embedded", { "task.threads": "0" }, dir), startPostgres()]);
  api = connectClient(worker.url);
}, 120_000);
afterAll(async () => {
  logs.stop();
  await worker?.stop();
  await pg?.stop();
  removeConnectDir(worker);
});

type Infos = { error_count: number; configs: { value: { name: string; errors: string[] } }[] };

async function errorsOf(plugin: string, config: Record<string, string>): Promise<Record<string, string[]>> {
  const res = await api.put(`/connector-plugins/${plugin}/config/validate`, config);
  expect(res.status).toBe(200);
  const infos = res.body as Infos;
  return Object.fromEntries(
    infos.configs.filter((c) => c.value.errors.length > 0).map((c) => [c.value.name, c.value.errors]),
  );
}

/** The config warnings logged about a connector since `from` (an offset in the captured text). */
const warningsAbout = (name: string, from: number) =>
  logLines(logs.text().slice(from))
    .filter((l) => l.level === "warn" && l.connector === name)
    .map((l) => l.msg);

const cdc = (name: string, extra: Record<string, string>) => ({
  "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
  name,
  ...cdcConnection(pg),
  "topic.prefix": name,
  "slot.name": name,
  "snapshot.mode": "no_data",
  ...extra,
});

describe("PostgreSQL CDC connector (Debezium's settings)", () => {
  test("a Debezium custom converter is refused: a validation error on the setting, and no connector", async () => {
    const config = cdc("converted", { converters: "isbn" });
    expect(await errorsOf("PostgresConnector", config)).toEqual({
      converters: [
        "Invalid value isbn for configuration converters: converters is not supported by Sluice: Sluice runs no Debezium custom converters (Java classes) (remove it)",
      ],
    });
    const created = await api.post("/connectors", { name: "converted", config });
    expect(created.status).toBe(400);
    expect((created.body as { message: string }).message).toStartWith(
      "Connector configuration is invalid and contains the following 1 error(s):\nInvalid value isbn for configuration converters: converters is not supported by Sluice",
    );
    expect((await api.get("/connectors/converted")).status).toBe(404);
  });

  test("a refused setting given Debezium's default is accepted", async () => {
    expect(
      await errorsOf(
        "PostgresConnector",
        cdc("defaults", {
          "transaction.metadata.factory": "io.debezium.pipeline.txmetadata.DefaultTransactionMetadataFactory",
          "binary.handling.mode": "BYTES",
          "signal.enabled.channels": "source",
        }),
      ),
    ).toEqual({});
    const factory = { "transaction.metadata.factory": "com.example.TxFactory" };
    expect(await errorsOf("PostgresConnector", cdc("defaults", factory))).toEqual({
      "transaction.metadata.factory": [
        "Invalid value com.example.TxFactory for configuration transaction.metadata.factory: transaction.metadata.factory is not supported by Sluice: Sluice makes Debezium's default transaction metadata only (set io.debezium.pipeline.txmetadata.DefaultTransactionMetadataFactory or remove it)",
      ],
    });
  });

  test("a misspelt filter and a tuning setting are warned about at create and at update", async () => {
    const from = logs.text().length;
    const config = cdc("typo", { "table.include.lsit": "public.orders", "max.queue.size": "100" });
    expect((await api.post("/connectors", { name: "typo", config })).status).toBe(201);
    const expected = [
      "Connector typo: Setting max.queue.size has no effect in Sluice: it tunes Debezium's Java internals; Sluice has no such knob",
      "Connector typo: Unknown setting table.include.lsit is ignored; did you mean table.include.list?",
    ];
    expect(warningsAbout("typo", from)).toEqual(expected);
    const updated = logs.text().length;
    expect((await api.put("/connectors/typo/config", config)).status).toBe(200);
    expect(warningsAbout("typo", updated)).toEqual(expected);
    // What the console's connector page shows (Sluice's own endpoint).
    expect((await api.get("/sluice/connectors/typo/ignored-settings")).body).toEqual({
      noEffect: [{ name: "max.queue.size", message: expected[0]!.replace("Connector typo: ", "") }],
      unknown: [{ name: "table.include.lsit", message: expected[1]!.replace("Connector typo: ", "") }],
    });
    expect((await api.delete("/connectors/typo")).status).toBe(204);
    expect((await api.get("/sluice/connectors/typo/ignored-settings")).status).toBe(404);
  });
});

describe("framework settings (Kafka's)", () => {
  const source = (extra: Record<string, string>) => ({
    "connector.class": "FileStreamSource",
    name: "v",
    file: join(worker.dir, "in.txt"),
    topic: "lines",
    ...extra,
  });

  test("exactly.once.support=required is refused by a worker without exactly-once source support, as Kafka's", async () => {
    expect(await errorsOf("FileStreamSourceConnector", source({ "exactly.once.support": "required" }))).toEqual({
      "exactly.once.support": ["This worker does not have exactly-once source support enabled."],
    });
    expect(
      (
        await api.post("/connectors", {
          name: "eos",
          config: source({ name: "eos", "exactly.once.support": "required" }),
        })
      ).status,
    ).toBe(400);
    expect(await errorsOf("FileStreamSourceConnector", source({ "exactly.once.support": "Requested" }))).toEqual({});
  });

  test("topic creation settings are refused: the topic would not get them", async () => {
    const errors = await errorsOf(
      "FileStreamSourceConnector",
      source({ "topic.creation.default.cleanup.policy": "compact" }),
    );
    expect(Object.keys(errors)).toEqual(["topic.creation.default.cleanup.policy"]);
    expect(errors["topic.creation.default.cleanup.policy"]![0]).toContain(
      "is not supported by Sluice: Sluice creates a missing topic with the broker's defaults",
    );
  });

  test("transaction.boundary warns on a worker without exactly-once support; client overrides and transform settings are not judged as unknown", async () => {
    const from = logs.text().length;
    const config = source({
      "transaction.boundary": "interval",
      "producer.override.compression.type": "lz4",
      transforms: "r",
      "transforms.r.type": "org.apache.kafka.connect.transforms.RegexRouter",
      "transforms.r.regex": "(.*)",
      "transforms.r.replacement": "$1-x",
      "batch.szie": "10",
    });
    expect((await api.post("/connectors", { name: "boundary", config: { ...config, name: "boundary" } })).status).toBe(
      201,
    );
    expect(warningsAbout("boundary", from)).toEqual([
      "Connector boundary: Setting transaction.boundary has no effect on this worker: it has no exactly-once source support (exactly.once.source.support=enabled, on distributed workers only)",
      "Connector boundary: Unknown setting batch.szie is ignored; did you mean batch.size?",
    ]);
    expect((await api.delete("/connectors/boundary")).status).toBe(204);
  });
});

describe("converters and transforms", () => {
  test("a converter's refused setting is an error on its full name; a transform's misspelt one is warned about", async () => {
    const source = {
      "connector.class": "FileStreamSource",
      name: "conv",
      file: join(worker.dir, "in.txt"),
      topic: "lines",
    };
    const avro = {
      "value.converter": "io.confluent.connect.avro.AvroConverter",
      "value.converter.schema.registry.url": "http://127.0.0.1:1",
    };
    expect(
      await errorsOf("FileStreamSourceConnector", {
        ...source,
        ...avro,
        "value.converter.rule.executors": "encrypt",
        "value.converter.rule.executors.encrypt.class": "x",
      }),
    ).toEqual({
      "value.converter.rule.executors": [
        "Invalid value encrypt for configuration value.converter.rule.executors: rule.executors is not supported by Sluice: Sluice's converters run no data contract rules (no field encryption, no CEL checks or transforms) (leave it empty or remove it)",
      ],
    });
    const from = logs.text().length;
    const config = {
      ...source,
      ...avro,
      "value.converter.latest.cache.size": "10",
      "key.converter.schemas.enabel": "false",
      transforms: "r",
      "transforms.r.type": "RegexRouter",
      "transforms.r.regex": "(.*)",
      "transforms.r.replacement": "$1-x",
      "transforms.r.replacment": "$1-y",
    };
    expect((await api.post("/connectors", { name: "conv", config })).status).toBe(201);
    expect(warningsAbout("conv", from)).toEqual([
      "Connector conv: Setting value.converter.latest.cache.size has no effect in Sluice: it tunes Confluent's registry client; Sluice's has no such knob",
      "Connector conv: Unknown setting key.converter.schemas.enabel is ignored; did you mean key.converter.schemas.enable?",
      "Connector conv: Unknown setting transforms.r.replacment is ignored; did you mean transforms.r.replacement?",
    ]);
    expect((await api.delete("/connectors/conv")).status).toBe(204);
  });
});

describe("sinks (Confluent's settings)", () => {
  test("JDBC sink: a driver property is refused, naming where it goes instead", async () => {
    const errors = await errorsOf("JdbcSinkConnector", {
      "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
      name: "j",
      topics: "t",
      "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/postgres`,
      "connection.user": pg.user,
      "connection.sslmode": "require",
      "table.types": "TABLE",
    });
    expect(errors["connection.sslmode"]).toEqual([
      "Invalid value require for configuration connection.sslmode: connection.sslmode is not supported by Sluice: Sluice passes no properties to a JDBC driver; give the connection's parameters (e.g. sslmode) in connection.url (remove it)",
    ]);
    expect(errors["table.types"]).toBeUndefined();
  });

  test("search sink: data streams and Kerberos are refused", async () => {
    const errors = await errorsOf("ElasticsearchSinkConnector", {
      "connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
      name: "e",
      topics: "t",
      "connection.url": "http://127.0.0.1:1",
      "data.stream.type": "logs",
      "kerberos.keytab.path": "/etc/krb5.keytab",
      "data.stream.namespace": "${topic}",
    });
    expect(errors["data.stream.type"]![0]).toContain(
      "data.stream.type is not supported by Sluice: Sluice writes to indices, not data streams (set none or remove it)",
    );
    expect(errors["kerberos.keytab.path"]![0]).toContain("kerberos.keytab.path is not supported by Sluice");
    expect(errors["data.stream.namespace"]).toBeUndefined();
  });
});

describe("plugins (settings declared through the SDK)", () => {
  test("a plugin's refused setting fails the config; its ignored one and a typo are warned about", async () => {
    const refusedErrors = await errorsOf("QuietSource", {
      "connector.class": "QuietSource",
      name: "q",
      topic: "t",
      "legacy.encrypt": "true",
    });
    expect(refusedErrors).toEqual({
      "legacy.encrypt": [
        "Invalid value true for configuration legacy.encrypt: legacy.encrypt is not supported by Sluice: this plugin does not encrypt (set false or remove it)",
      ],
    });
    const from = logs.text().length;
    const config = {
      "connector.class": "QuietSource",
      name: "quiet",
      topic: "t",
      "legacy.encrypt": "false",
      "legacy.pool.size": "4",
      topc: "x",
    };
    expect((await api.post("/connectors", { name: "quiet", config })).status).toBe(201);
    expect(warningsAbout("quiet", from)).toEqual([
      "Connector quiet: Setting legacy.pool.size has no effect in Sluice: this plugin has no pool",
      "Connector quiet: Unknown setting topc is ignored; did you mean topic?",
    ]);
    expect((await api.delete("/connectors/quiet")).status).toBe(204);
  });
});
