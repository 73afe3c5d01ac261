// dist/sluice, built by `bun run build`, run from a directory with no node_modules: CLI, settings
// from file/env/flags, the registry on Kafka and on the embedded default, surviving kill -9.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync, type Subprocess } from "bun";
import { root } from "../../fixtures/binary.ts";
import * as fs from "node:fs";
import { writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { CONNECT_FILE_JAR } from "../../fixtures/connect.ts";
import { client } from "../../fixtures/registry.ts";
import { install, type Install } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

let installed: Install;
let dir: string;
let bin: string;

beforeAll(() => {
  installed = install("sluice-bin-");
  ({ dir, bin } = installed);
}, 180_000);
afterAll(() => installed.remove());

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync([bin, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function startRegistry(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ proc: Subprocess; url: string }> {
  const url = `http://127.0.0.1:${freePort()}`;
  const { proc } = await installed.serve(["registry", ...args, "--listeners", url], { readyUrl: url, env });
  return { proc, url };
}

describe("dist/sluice", () => {
  test("sluice dev as the README starts it: 8081 and 8083 on this machine only, the start line naming the console", async () => {
    const work = join(dir, "dev-defaults");
    fs.mkdirSync(work, { recursive: true });
    const { proc } = await installed.serve(["dev"], {
      cwd: work,
      readyUrl: ["http://127.0.0.1:8081/", "http://127.0.0.1:8083/"],
      log: "dev.log",
      env: { SLUICE_LOG_LEVEL: "info" },
    });
    try {
      const start = await waitFor("the start line", () =>
        fs
          .readFileSync(join(work, "dev.log"), "utf8")
          .split("\n")
          .find((l) => l.includes("listening on")),
      );
      expect(start).toContain(
        "Schema registry listening on http://127.0.0.1:8081; connect worker on http://127.0.0.1:8083 (embedded broker); the console at http://127.0.0.1:8081/ui/ (this machine only",
      );
      // Not reachable at the machine's other addresses (the FileStream connectors read any file the user can).
      const external = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && a.family === "IPv4" && !a.internal)
        .map((a) => a!.address);
      for (const address of external)
        for (const port of [8081, 8083])
          expect(
            await fetch(`http://${address}:${port}/`).then(
              () => "answered",
              () => "refused",
            ),
          ).toBe("refused");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test("--version, --help, unknown command", () => {
    // The version, and the commit build.ts built it from.
    expect(run(["--version"]).stdout.toString().trim()).toMatch(/^\d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)\)$/);
    expect(run(["--help"]).stdout.toString()).toContain("sluice registry");
    expect(run(["nonsense"]).exitCode).not.toBe(0);
    // A misspelt command says which one was meant.
    const typo = run(["regsitry"]);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr.toString()).toStartWith("Unknown command regsitry; did you mean registry?");
    expect(run(["nonsense"]).stderr.toString()).toStartWith("Unknown command nonsense\n");
  });

  test("an invalid setting exits non-zero naming the setting, the value and what is allowed", () => {
    const fromFlag = run(["registry", "--kafkastore.topic.replication.factor=three"]);
    expect(fromFlag.exitCode).not.toBe(0);
    expect(fromFlag.stderr.toString()).toContain(
      'Invalid value "three" for setting kafkastore.topic.replication.factor: an integer is required',
    );
    const fromEnv = run(["registry"], { SCHEMA_REGISTRY_SCHEMA_COMPATIBILITY_LEVEL: "sideways" });
    expect(fromEnv.exitCode).not.toBe(0);
    expect(fromEnv.stderr.toString()).toContain("schema.compatibility.level");
    expect(fromEnv.stderr.toString()).toContain("BACKWARD_TRANSITIVE");
    const file = join(dir, "bad.properties");
    writeFileSync(file, "listeners = ftp://nowhere\n");
    const fromFile = run(["registry", file]);
    expect(fromFile.exitCode).not.toBe(0);
    expect(fromFile.stderr.toString()).toContain("listeners");
  });

  test("embedded default: registrations survive kill -9 and restart", async () => {
    const data = join(dir, "data-embedded");
    let sr = await startRegistry(["--data-dir", data]);
    const api = () => client(sr.url);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api().register(
        "crash-value",
        { type: "record", name: "R", fields: [{ name: `f${i}`, type: "int", default: i }] },
        {},
      );
      expect(r.status).toBe(200);
      ids.push(r.body.id);
    }
    await api().put("/config/crash-value", { compatibility: "FULL" });
    sr.proc.kill("SIGKILL");
    await sr.proc.exited;
    sr = await startRegistry(["--data-dir", data]);
    expect((await api().get("/subjects/crash-value/versions")).body).toEqual([1, 2, 3, 4, 5]);
    expect((await api().get("/subjects/crash-value/versions/5")).body.id).toBe(ids[4]);
    expect((await api().get("/config/crash-value")).body).toEqual({ compatibilityLevel: "FULL" });
    sr.proc.kill("SIGTERM");
    await sr.proc.exited;
  }, 60_000);

  test("on Kafka, configured by a properties file and an environment override", async () => {
    const kafka = await sharedKafka();
    const topic = `_schemas_bin_${Date.now()}`;
    const file = join(dir, "schema-registry.properties");
    writeFileSync(
      file,
      `# Confluent-style file\nkafkastore.bootstrap.servers=PLAINTEXT://${kafka.bootstrap}\nkafkastore.topic.replication.factor=1\nkafkastore.topic=wrong\n`,
    );
    let sr = await startRegistry([file], { SCHEMA_REGISTRY_KAFKASTORE_TOPIC: topic });
    const r = await client(sr.url).register("bin-value", '"long"');
    expect(r.status).toBe(200);
    sr.proc.kill("SIGKILL");
    await sr.proc.exited;
    // The spec's names work too, and a restarted instance serves the same id from the topic.
    sr = await startRegistry([
      `--brokerstore.bootstrap.servers=${kafka.bootstrap}`,
      `--brokerstore.topic=${topic}`,
      "--kafkastore.topic.replication.factor=1",
    ]);
    expect((await client(sr.url).get("/subjects/bin-value/versions/1")).body.id).toBe(r.body.id);
    sr.proc.kill("SIGTERM");
    await sr.proc.exited;
  }, 60_000);

  test("all three formats: register, normalize, look up and check compatibility on every level", async () => {
    const sr = await startRegistry(["--data-dir", join(dir, "data-formats")]);
    const api = client(sr.url);
    const schemas = {
      AVRO: [
        { type: "record", name: "R", fields: [{ name: "a", type: "string" }] },
        {
          type: "record",
          name: "R",
          fields: [
            { name: "a", type: "string" },
            { name: "b", type: "int", default: 0 },
          ],
        },
        { type: "record", name: "R", fields: [{ name: "b", type: "int", default: 0 }] },
      ],
      JSON: [
        { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
        { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, additionalProperties: false },
        { type: "object", properties: { b: { type: "integer" } }, additionalProperties: false },
      ],
      PROTOBUF: [
        'syntax = "proto3";\nmessage R {\n  string a = 1;\n}\n',
        'syntax = "proto3";\nmessage R {\n  string a = 1;\n  int32 b = 2;\n}\n',
        'syntax = "proto3";\nmessage R {\n  int64 a = 1;\n}\n',
      ],
    } as const;
    for (const [schemaType, [v1, v2, v3]] of Object.entries(schemas)) {
      const subject = `levels-${schemaType.toLowerCase()}`;
      const reg = (s: unknown, q = "") =>
        api.post(`/subjects/${subject}/versions${q}`, {
          schemaType,
          schema: typeof s === "string" ? s : JSON.stringify(s),
        });
      expect((await reg(v1)).status).toBe(200);
      expect((await reg(v2)).status).toBe(200);
      // normalize=true finds the same schema again; lookup finds it.
      expect((await reg(v2, "?normalize=true")).body.id).toBe(
        (await api.get(`/subjects/${subject}/versions/2`)).body.id,
      );
      expect(
        (
          await api.post(`/subjects/${subject}`, {
            schemaType,
            schema: typeof v1 === "string" ? v1 : JSON.stringify(v1),
          })
        ).body.version,
      ).toBe(1);
      const verdicts: Record<string, boolean> = {};
      for (const level of [
        "NONE",
        "BACKWARD",
        "BACKWARD_TRANSITIVE",
        "FORWARD",
        "FORWARD_TRANSITIVE",
        "FULL",
        "FULL_TRANSITIVE",
      ]) {
        await api.put(`/config/${subject}`, { compatibility: level });
        const check = await api.post(`/compatibility/subjects/${subject}/versions`, {
          schemaType,
          schema: typeof v3 === "string" ? v3 : JSON.stringify(v3),
        });
        expect(check.status).toBe(200);
        verdicts[level] = check.body.is_compatible;
      }
      expect(verdicts.NONE).toBe(true);
      // Transitive levels are at least as strict as their non-transitive forms.
      for (const base of ["BACKWARD", "FORWARD", "FULL"])
        if (!verdicts[base]) expect(verdicts[`${base}_TRANSITIVE`]).toBe(false);
      if (!verdicts.BACKWARD || !verdicts.FORWARD) expect(verdicts.FULL).toBe(false);
      // Avro v3 drops "a", which older readers need (no default): readable going back, not forward.
      if (schemaType === "AVRO") {
        expect(verdicts).toEqual({
          NONE: true,
          BACKWARD: true,
          BACKWARD_TRANSITIVE: true,
          FORWARD: false,
          FORWARD_TRANSITIVE: false,
          FULL: false,
          FULL_TRANSITIVE: false,
        });
      }
      // Protobuf v3 changes a's kind (string → int64): incompatible whichever way.
      if (schemaType === "PROTOBUF") expect(verdicts.BACKWARD || verdicts.FORWARD).toBe(false);
    }
    expect((await api.get("/schemas/types")).body).toEqual(["JSON", "PROTOBUF", "AVRO"]);
    sr.proc.kill("SIGTERM");
    await sr.proc.exited;
  }, 60_000);

  test("connect-standalone with Kafka Connect's files: kill -9 mid-run loses no line", async () => {
    const work = join(dir, "connect-crash");
    const input = join(work, "in.txt");
    const output = join(work, "out.txt");
    fs.mkdirSync(work, { recursive: true });
    const all = Array.from({ length: 20000 }, (_, i) => `row-${i}`);
    writeFileSync(input, all.slice(0, 10000).join("\n") + "\n");
    const port = freePort();
    writeFileSync(
      join(work, "worker.properties"),
      [
        `listeners=http://127.0.0.1:${port}`,
        `data.dir=${join(work, "data")}`,
        `offset.storage.file.filename=${join(work, "offsets")}`,
        "offset.flush.interval.ms=200",
        `plugin.path=${join(work, "libs", CONNECT_FILE_JAR)}`,
        "key.converter=org.apache.kafka.connect.storage.StringConverter",
        "value.converter=org.apache.kafka.connect.storage.StringConverter",
      ].join("\n"),
    );
    writeFileSync(
      join(work, "source.properties"),
      `name=src\nconnector.class=FileStreamSource\nfile=${input}\ntopic=rows\nbatch.size=500\n`,
    );
    writeFileSync(
      join(work, "sink.json"),
      JSON.stringify({ name: "sink", config: { "connector.class": "FileStreamSink", file: output, topics: "rows" } }),
    );
    const log = (run: number, stream = "out") => join(work, `run-${run}.${stream}`);
    const start = (run: number) =>
      spawn(
        [
          bin,
          "connect-standalone",
          join(work, "worker.properties"),
          join(work, "source.properties"),
          join(work, "sink.json"),
        ],
        {
          cwd: work,
          env: { PATH: process.env.PATH ?? "", HOME: dir, SLUICE_LOG_LEVEL: "info" },
          stdout: Bun.file(log(run)),
          stderr: Bun.file(log(run, "err")),
        },
      );
    const lines = () => (fs.existsSync(output) ? fs.readFileSync(output, "utf8").split("\n").filter(Boolean) : []);
    let proc = start(1);
    await waitFor("some rows delivered", () => lines().length > 100 || undefined, { timeoutMs: 30000, intervalMs: 5 });
    proc.kill("SIGKILL");
    await proc.exited;
    fs.appendFileSync(input, all.slice(10000).join("\n") + "\n");
    proc = start(2);
    // A timeout says whether rows are lost or late, and what the worker logged.
    await waitFor(
      "every row delivered",
      () => {
        const seen = new Set(lines());
        const missing = all.filter((row) => !seen.has(row));
        if (missing.length === 0) return true;
        throw new Error(`${missing.length} rows missing (${missing[0]} to ${missing.at(-1)})`);
      },
      { timeoutMs: 60000 },
    ).catch((err: Error) => {
      const logs = [1, 2].flatMap((run) => [log(run), log(run, "err")].map((file) => fs.readFileSync(file, "utf8")));
      throw new Error([err.message, ...logs].join("\n"));
    });
    const got = lines();
    // Nothing lost, order kept; duplicates only from re-delivery after the crash.
    const firstSeen = got.filter((line, i) => got.indexOf(line) === i);
    expect(firstSeen).toEqual(all);
    const status = (await fetch(`http://127.0.0.1:${port}/connectors/sink/status`).then((r) => r.json())) as {
      connector: { state: string };
    };
    expect(status.connector.state).toBe("RUNNING");
    proc.kill("SIGTERM");
    await proc.exited;
  }, 120_000);

  test("sluice dev: a plugin from plugins/ feeds every converter, the registry-backed ones through the bundled registry", async () => {
    const work = join(dir, "dev-plugin");
    fs.mkdirSync(join(work, "plugins"), { recursive: true });
    fs.copyFileSync(join(root, "plugins", "sequence-source.ts"), join(work, "plugins", "sequence-source.ts"));
    const registryPort = freePort();
    const connectPort = freePort();
    const registry = `http://127.0.0.1:${registryPort}`;
    const hoist = "transforms=hoist\ntransforms.hoist.type=HoistField$Value\ntransforms.hoist.field=n\n";
    // [name, converter, struct values?, expected line of n]
    const converters: [string, string, boolean, (n: number) => string][] = [
      ["avro", "io.confluent.connect.avro.AvroConverter", true, (n) => `Struct{n=${n}}`],
      ["protobuf", "io.confluent.connect.protobuf.ProtobufConverter", true, (n) => `Struct{n=${n}}`],
      ["jsonschema", "io.confluent.connect.json.JsonSchemaConverter", true, (n) => `Struct{n=${n}}`],
      ["json", "org.apache.kafka.connect.json.JsonConverter", true, (n) => `Struct{n=${n}}`],
      ["string", "org.apache.kafka.connect.storage.StringConverter", false, (n) => String(n)],
      ["long", "org.apache.kafka.connect.converters.LongConverter", false, (n) => String(n)],
    ];
    const files: string[] = [];
    for (const [name, cls, structs] of converters) {
      const conv = `value.converter=${cls}\nvalue.converter.schema.registry.url=${registry}\n`;
      writeFileSync(
        join(work, `seq-${name}.properties`),
        `name=seq-${name}\nconnector.class=SequenceSource\ntopic=numbers-${name}\nsequence.max=10\n${structs ? hoist : ""}${conv}`,
      );
      writeFileSync(
        join(work, `sink-${name}.properties`),
        `name=sink-${name}\nconnector.class=FileStreamSink\ntopics=numbers-${name}\nfile=${join(work, `${name}.txt`)}\n${conv}`,
      );
      files.push(`seq-${name}.properties`, `sink-${name}.properties`);
    }
    // ByteArrayConverter passes the LongConverter's bytes through untouched.
    writeFileSync(
      join(work, "sink-bytes.properties"),
      `name=sink-bytes\nconnector.class=FileStreamSink\ntopics=numbers-long\nfile=${join(work, "bytes.txt")}\nvalue.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n`,
    );
    files.push("sink-bytes.properties");
    const proc = spawn(
      [
        bin,
        "dev",
        "--data-dir",
        join(work, "data"),
        "--registry-listeners",
        registry,
        "--connect-listeners",
        `http://127.0.0.1:${connectPort}`,
        ...files,
      ],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? "", HOME: dir, SLUICE_LOG_LEVEL: "warn" },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const read = (file: string) =>
      fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    try {
      for (const [name, , , line] of [
        ...converters,
        ["bytes", "", false, (n: number) => `[0, 0, 0, 0, 0, 0, 0, ${n}]`] as const,
      ]) {
        const file = join(work, `${name}.txt`);
        await waitFor(`10 values through ${name}`, () => read(file).length >= 10 || undefined, { timeoutMs: 30000 });
        expect({ name, lines: read(file) }).toEqual({ name, lines: Array.from({ length: 10 }, (_, n) => line(n)) });
      }
      const plugins = (await fetch(`http://127.0.0.1:${connectPort}/connector-plugins`).then((r) => r.json())) as {
        class: string;
      }[];
      expect(plugins.map((p) => p.class)).toContain("io.sluice.examples.SequenceSourceConnector");
      expect(await fetch(`${registry}/subjects`).then((r) => r.json())).toEqual([
        "numbers-avro-value",
        "numbers-jsonschema-value",
        "numbers-protobuf-value",
      ]);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 90_000);
});
