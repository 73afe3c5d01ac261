// Worker and registry settings of Kafka Connect and Confluent Schema Registry that Sluice does not
// implement, through dist/sluice: one that would change security or delivery stops start-up with a
// message naming each (exit 1), one of no effect is a warning; Confluent's DEK registry extension is
// recognised as built in.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSluice, startSluice } from "../../fixtures/sluice-process.ts";
import { logLines } from "../../fixtures/logs.ts";
import { freePort } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-unsupported-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const properties = (name: string, settings: Record<string, string>) => {
  const file = join(dir, name);
  writeFileSync(
    file,
    Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  return file;
};

test("connect-standalone refuses exactly-once source support, naming it: a file cannot take part in a transaction", async () => {
  const worker = properties("eos.properties", {
    listeners: `http://127.0.0.1:${freePort()}`,
    "data.dir": join(dir, "eos-data"),
    "exactly.once.source.support": "enabled",
    "connector.client.config.override.policy": "None",
  });
  const { code, stderr } = await runSluice(["connect-standalone", worker], { cwd: dir });
  expect(code).toBe(1);
  expect(stderr).toContain('Invalid value "enabled" for setting exactly.once.source.support: disabled:');
  expect(stderr).toContain("exactly-once source support needs a distributed worker");
  // The override policy is one Sluice implements (test/integration/connect/client-overrides.test.ts).
  expect(stderr).not.toContain("connector.client.config.override.policy");
});

test("connect-distributed refuses an exactly.once.source.support Kafka does not know, from the environment too", async () => {
  const worker = properties("distributed.properties", {
    listeners: `http://127.0.0.1:${freePort()}`,
    "data.dir": join(dir, "dist-data"),
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
  });
  const { code, stderr } = await runSluice(["connect-distributed", worker], {
    cwd: dir,
    env: { CONNECT_EXACTLY_ONCE_SOURCE_SUPPORT: "sometimes" },
  });
  expect(code).toBe(1);
  expect(stderr).toContain("exactly.once.source.support");
  expect(stderr).toContain("String must be one of (case insensitive): DISABLED, ENABLED, PREPARING");
});

test("a worker's converter setting Sluice does not implement stops start-up too, by its full name", async () => {
  const worker = properties("converter.properties", {
    listeners: `http://127.0.0.1:${freePort()}`,
    "data.dir": join(dir, "converter-data"),
    "value.converter": "io.confluent.connect.avro.AvroConverter",
    "value.converter.schema.registry.url": "http://127.0.0.1:8081",
    "value.converter.rule.executors": "encrypt",
  });
  const { code, stderr } = await runSluice(["connect-standalone", worker], { cwd: dir });
  expect(code).toBe(1);
  expect(stderr).toContain(
    "value.converter.rule.executors=encrypt: value.converter.rule.executors is not supported by Sluice: Sluice's converters run no data contract rules",
  );
});

test("exactly.once.source.support=disabled starts; a tuning setting is a warning", async () => {
  const url = `http://127.0.0.1:${freePort()}`;
  const worker = properties("disabled.properties", {
    listeners: url,
    "data.dir": join(dir, "disabled-data"),
    "exactly.once.source.support": "disabled",
    "worker.sync.timeout.ms": "3000",
  });
  const sluice = await startSluice(["connect-standalone", worker], { cwd: dir, readyUrl: `${url}/connectors` });
  await sluice.stop();
  const warnings = logLines(await new Response(sluice.proc.stdout).text())
    .filter((l) => l.level === "warn")
    .map((l) => l.msg);
  expect(warnings).toContain(
    "Setting worker.sync.timeout.ms has no effect in Sluice: it tunes Kafka's worker group protocol; Sluice's has no such knob",
  );
});

test("connect-distributed starts with exactly.once.source.support=preparing, warning that its tasks deliver at least once", async () => {
  const url = `http://127.0.0.1:${freePort()}`;
  const worker = properties("preparing.properties", {
    listeners: url,
    "data.dir": join(dir, "preparing-data"),
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "exactly.once.source.support": "preparing",
  });
  const sluice = await startSluice(["connect-distributed", worker], { cwd: dir, readyUrl: `${url}/connectors` });
  await sluice.stop();
  const warnings = logLines(await new Response(sluice.proc.stdout).text())
    .filter((l) => l.level === "warn")
    .map((l) => l.msg);
  expect(warnings).toContain(
    "exactly.once.source.support=preparing: source tasks deliver at least once until every worker has enabled; Sluice's workers need no preparing step, and preparing has no other effect",
  );
});

test("the registry refuses a resource extension other than the DEK registry's, by name", async () => {
  const registry = properties("extension.properties", {
    listeners: `http://127.0.0.1:${freePort()}`,
    "data.dir": join(dir, "ext-data"),
    "resource.extension.class": "com.example.AuditExtension",
  });
  const { code, stderr } = await runSluice(["registry", registry], { cwd: dir });
  expect(code).toBe(1);
  expect(stderr).toContain(
    "resource.extension.class=com.example.AuditExtension: resource.extension.class is not supported by Sluice: Sluice runs no Java resource extensions; the DEK registry (io.confluent.dekregistry.DekRegistryResourceExtension) and the schema exporters (io.confluent.schema.exporter.SchemaExporterResourceExtension) are built in and always on",
  );
});

test("the registry takes the DEK registry extension (under either name) as built in", async () => {
  const url = `http://127.0.0.1:${freePort()}`;
  const registry = properties("dek.properties", {
    listeners: url,
    "data.dir": join(dir, "dek-data"),
    "schema.registry.resource.extension.class": "io.confluent.dekregistry.DekRegistryResourceExtension",
  });
  const sluice = await startSluice(["registry", registry], {
    cwd: dir,
    readyUrl: `${url}/subjects`,
    env: { SLUICE_LOG_LEVEL: "info" },
  });
  await sluice.stop();
  const lines = logLines(await new Response(sluice.proc.stdout).text());
  expect(lines.filter((l) => l.level === "info").map((l) => l.msg)).toContain(
    "Resource extension io.confluent.dekregistry.DekRegistryResourceExtension: the DEK registry is built into Sluice and always on",
  );
  expect(
    lines
      .filter((l) => l.level === "warn")
      .map((l) => l.msg)
      .join("\n"),
  ).not.toContain("resource.extension");
});

test("the registry takes Confluent's list of both built-in extensions, the schema exporters' among them", async () => {
  const url = `http://127.0.0.1:${freePort()}`;
  const registry = properties("exporter.properties", {
    listeners: url,
    "data.dir": join(dir, "exporter-data"),
    "resource.extension.class":
      "io.confluent.dekregistry.DekRegistryResourceExtension, io.confluent.schema.exporter.SchemaExporterResourceExtension",
  });
  const sluice = await startSluice(["registry", registry], {
    cwd: dir,
    readyUrl: `${url}/exporters`,
    env: { SLUICE_LOG_LEVEL: "info" },
  });
  await sluice.stop();
  const infos = logLines(await new Response(sluice.proc.stdout).text())
    .filter((l) => l.level === "info")
    .map((l) => l.msg);
  expect(infos).toContain(
    "Resource extension io.confluent.schema.exporter.SchemaExporterResourceExtension: the schema exporters are built into Sluice and always on",
  );
  expect(infos).toContain(
    "Resource extension io.confluent.dekregistry.DekRegistryResourceExtension: the DEK registry is built into Sluice and always on",
  );
});

test("Kafka client security settings on the embedded broker are said to have no effect (registry, dev)", async () => {
  const url = `http://127.0.0.1:${freePort()}`;
  const registry = properties("embedded-security.properties", {
    listeners: url,
    "data.dir": join(dir, "embedded-security-data"),
    "kafkastore.security.protocol": "SASL_SSL",
    "kafkastore.sasl.mechanism": "PLAIN",
    "kafkastore.sasl.jaas.config":
      'org.apache.kafka.common.security.plain.PlainLoginModule required username="sr" password="sr-secret";',
  });
  const sluice = await startSluice(["registry", registry], { cwd: dir, readyUrl: `${url}/subjects` });
  await sluice.stop();
  const warnings = logLines(await new Response(sluice.proc.stdout).text())
    .filter((l) => l.level === "warn")
    .map((l) => l.msg);
  expect(warnings).toContain(
    "kafkastore.sasl.jaas.config, kafkastore.sasl.mechanism, kafkastore.security.protocol have no effect: on the embedded broker there is no Kafka connection to secure (set kafkastore.bootstrap.servers to use Kafka)",
  );

  const [registryUrl, connectUrl] = [`http://127.0.0.1:${freePort()}`, `http://127.0.0.1:${freePort()}`];
  const dev = await startSluice(
    [
      "dev",
      "--registry-listeners",
      registryUrl,
      "--connect-listeners",
      connectUrl,
      "--data-dir",
      join(dir, "embedded-security-dev"),
      "--producer.sasl.mechanism=PLAIN",
    ],
    { cwd: dir, readyUrl: `${connectUrl}/connectors` },
  );
  await dev.stop();
  const devWarnings = logLines(await new Response(dev.proc.stdout).text())
    .filter((l) => l.level === "warn")
    .map((l) => l.msg);
  expect(devWarnings).toContain(
    "producer.sasl.mechanism has no effect: on the embedded broker there is no Kafka connection to secure (set bootstrap.servers to use Kafka)",
  );
});
