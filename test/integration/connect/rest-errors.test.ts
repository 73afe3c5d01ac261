// Kafka Connect's answers to bad requests, config validation, config providers and plugins
// (embedded broker).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { waitFor } from "../../fixtures/wait.ts";
import { readFileSync, existsSync } from "node:fs";

describe("connect REST: errors, validation, providers, plugins", () => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  beforeAll(async () => {
    worker = await startTestConnect("embedded", {
      "config.providers": "file",
      "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    });
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("root, health, plugin listing", async () => {
    expect(Object.keys((await api.get("/")).body)).toEqual(["version", "commit", "kafka_cluster_id"]);
    expect((await api.get("/health")).body).toEqual({
      status: "healthy",
      message: "Worker has completed startup and is ready to handle requests.",
    });
    const plugins = (await api.get("/connector-plugins")).body as { class: string; type: string }[];
    expect(plugins.map((p) => p.class)).toContain("org.apache.kafka.connect.file.FileStreamSinkConnector");
    expect(plugins.every((p) => p.type === "source" || p.type === "sink")).toBe(true);
    const all = (await api.get("/connector-plugins?connectorsOnly=false")).body as { class: string; type: string }[];
    expect(all.some((p) => p.class === "org.apache.kafka.connect.json.JsonConverter" && p.type === "converter")).toBe(
      true,
    );
    const config = (await api.get("/connector-plugins/FileStreamSource/config")).body as { name: string }[];
    expect(config.map((c) => c.name)).toContain("topic");
    expect((await api.get("/connector-plugins/Nope/config")).body).toEqual({
      error_code: 404,
      message: "Unknown plugin Nope.",
    });
  });

  test("bad requests: unknown class, invalid config, duplicate, unknown connector, malformed JSON", async () => {
    const unknown = await api.post("/connectors", { name: "x", config: { "connector.class": "com.example.Nope" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain("FileStreamSourceConnector");
    const noClass = await api.post("/connectors", { name: "x", config: { "tasks.max": "1" } });
    expect(noClass.status).toBe(400);
    expect(noClass.body.message).toContain("contains no connector type");
    const invalid = await api.post("/connectors", {
      name: "x",
      config: { "connector.class": "FileStreamSink", "tasks.max": "zero" },
    });
    expect(invalid.status).toBe(400);
    // tasks.max=zero is one error (Kafka reports it twice, the second time as a null value), plus topics/topics.regex.
    expect(invalid.body.message).toStartWith(
      "Connector configuration is invalid and contains the following 3 error(s):",
    );
    expect(invalid.body.message).toContain("tasks.max");
    expect(invalid.body.message).toContain("Must configure one of topics or topics.regex");
    const mismatch = await api.put("/connectors/a/config", {
      name: "b",
      "connector.class": "FileStreamSink",
      topics: "t",
    });
    expect(mismatch.body).toEqual({
      error_code: 400,
      message: "Connector name configuration (b) doesn't match connector name in the URL (a)",
    });

    const file = join(worker.dir, "sink.txt");
    const created = await api.put("/connectors/dup/config", {
      "connector.class": "FileStreamSink",
      topics: "dup-topic",
      file,
    });
    expect(created.status).toBe(201);
    expect(
      (await api.put("/connectors/dup/config", { "connector.class": "FileStreamSink", topics: "dup-topic2", file }))
        .status,
    ).toBe(200);
    const dup = await api.post("/connectors", {
      name: "dup",
      config: { "connector.class": "FileStreamSink", topics: "t", file },
    });
    expect(dup.body).toEqual({ error_code: 409, message: "Connector dup already exists" });
    expect((await api.get("/connectors/nope")).body).toEqual({ error_code: 404, message: "Connector nope not found" });
    expect((await api.get("/connectors/nope/status")).body).toEqual({
      error_code: 404,
      message: "No status found for connector nope",
    });
    expect((await api.get("/connectors/dup/tasks/9/status")).body).toEqual({
      error_code: 404,
      message: "No status found for task dup-9",
    });
    // Malformed JSON is the caller's mistake: 400 (Kafka Connect's generic mapper answers 500).
    const malformed = await api.post("/connectors", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error_code).toBe(400);
    // In Jackson's words, not the JavaScript engine's.
    expect(malformed.body.message).toBe(
      "Unexpected character ('n' (code 110)): was expecting double-quote to start field name at line 1, column 2",
    );
    expect((await api.delete("/connectors/dup")).status).toBe(204);
    expect((await api.delete("/connectors/dup")).status).toBe(404);
    expect((await api.get("/nothing")).status).toBe(404);
    expect((await api.post("/connectors/x/pause")).status).toBe(405);
  });

  test("config/validate lists every problem in Kafka's shape", async () => {
    const result = await api.put("/connector-plugins/FileStreamSinkConnector/config/validate", {
      "connector.class": "FileStreamSink",
      "tasks.max": "-1",
    });
    expect(result.status).toBe(200);
    expect(result.body.name).toBe("FileStreamSink");
    expect(result.body.error_count).toBe(4); // name (required), tasks.max, topics, topics.regex
    expect(result.body.groups).toContain("Common");
    const tasksMax = result.body.configs.find(
      (c: { definition: { name: string } | null }) => c.definition?.name === "tasks.max",
    );
    expect(tasksMax.definition).toMatchObject({
      type: "INT",
      required: false,
      default_value: "1",
      importance: "HIGH",
      group: "Common",
    });
    expect(tasksMax.value.errors[0]).toContain("tasks.max");
    const mismatch = await api.put("/connector-plugins/FileStreamSource/config/validate", {
      "connector.class": "FileStreamSink",
    });
    expect(mismatch.status).toBe(400);
  });

  test("config providers: the connector gets the secret, REST shows the reference", async () => {
    const secrets = join(worker.dir, "secrets.properties");
    const out = join(worker.dir, "from-provider.txt");
    writeFileSync(secrets, `sink.file=${out}\n`);
    const reference = `\${file:${secrets}:sink.file}`;
    writeFileSync(join(worker.dir, "provider-in.txt"), "secret-line\n");
    await api.post("/connectors", {
      name: "psrc",
      config: {
        "connector.class": "FileStreamSource",
        file: join(worker.dir, "provider-in.txt"),
        topic: "provider-topic",
      },
    });
    const created = await api.post("/connectors", {
      name: "psink",
      config: { "connector.class": "FileStreamSink", file: reference, topics: "provider-topic" },
    });
    expect(created.body.config.file).toBe(reference);
    expect((await api.get("/connectors/psink/config")).body.file).toBe(reference);
    await waitFor(
      "the line in the file the provider named",
      () => (existsSync(out) && readFileSync(out, "utf8") === "secret-line\n") || undefined,
    );
  });

  test("a plugin dropped into plugin.path is listed and runs after restart", async () => {
    const plugins = join(worker.dir, "plugins");
    mkdirSync(plugins, { recursive: true });
    writeFileSync(
      join(plugins, "counter.ts"),
      `export default (sdk) => {
  class CounterTask extends sdk.SourceTask {
    n = 0;
    version() { return "1.0"; }
    start(props) { this.topic = props.topic; this.n = Number(this.context.offsetStorageReader.offset({ counter: "c" })?.n ?? 0); }
    async poll() {
      if (this.n >= 5) { await Bun.sleep(50); return null; }
      this.n++;
      return [sdk.sourceRecord({ sourcePartition: { counter: "c" }, sourceOffset: { n: this.n }, topic: this.topic, valueSchema: sdk.Schema.STRING_SCHEMA, value: "n=" + this.n })];
    }
    stop() {}
  }
  class CounterConnector extends sdk.SourceConnector {
    static className = "com.example.CounterConnector";
    version() { return "1.0"; }
    start(props) { this.props = props; }
    taskClass() { return CounterTask; }
    taskConfigs() { return [this.props]; }
    stop() {}
    config() { return new sdk.SettingsDefinition([{ name: "topic", type: "string", required: true, importance: "high", doc: "where" }]); }
  }
  return [CounterConnector];
};
`,
    );
    writeFileSync(join(plugins, "broken.ts"), "export default (sdk) => { throw new Error('broken on purpose'); };\n");
    await worker.stop();
    worker = await worker.restart();
    api = connectClient(worker.url);
    const listed = (await api.get("/connector-plugins")).body as { class: string; type: string; version?: string }[];
    expect(listed).toContainEqual({ class: "com.example.CounterConnector", type: "source", version: "1.0" });
    const out = join(worker.dir, "counter.txt");
    await api.post("/connectors", {
      name: "counter",
      config: { "connector.class": "CounterConnector", topic: "counter-topic" },
    });
    await api.post("/connectors", {
      name: "counter-sink",
      config: { "connector.class": "FileStreamSink", topics: "counter-topic", file: out },
    });
    await waitFor(
      "5 counted lines",
      () => (existsSync(out) && readFileSync(out, "utf8").split("\n").filter(Boolean).length === 5) || undefined,
    );
    expect(readFileSync(out, "utf8")).toBe("n=1\nn=2\nn=3\nn=4\nn=5\n");
  });
});
