// Kafka connections with SASL (PLAIN and SCRAM) and SSL, configured by Kafka's setting names: the
// registry (kafkastore.*) and a connect worker (top-level security.protocol, sasl.*, ssl.*) on a broker
// that only accepts authenticated or TLS clients; a wrong password is refused with a clear error that
// does not show it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientSecurity } from "#src/broker/client-security.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { startRegistry } from "#src/registry/server.ts";
import { registrySettingsDefinition } from "#src/registry/settings.ts";
import { connectClient, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { SASL_USERS, startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

let kafka: KafkaCluster;
let connect: TestConnect | undefined;
const dir = mkdtempSync(join(tmpdir(), "sluice-sasl-"));

beforeAll(async () => {
  kafka = await startKafka({ sasl: true });
  if (!kafka.owned) throw new Error("this test needs the fixture's own SASL broker, not KAFKA_BOOTSTRAP_SERVERS");
}, 120_000);
afterAll(async () => {
  await connect?.stop();
  await kafka?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const jaas = (
  module: "plain.PlainLoginModule" | "scram.ScramLoginModule",
  user: { username: string; password: string },
) => `org.apache.kafka.common.security.${module} required username="${user.username}" password="${user.password}";`;

test("the registry stores schemas over SASL/SCRAM-SHA-256, and refuses to start with a wrong password", async () => {
  const settings = (password: string) =>
    registrySettingsDefinition.parse({
      listeners: `http://127.0.0.1:${freePort()}`,
      "kafkastore.bootstrap.servers": kafka.bootstrap,
      "kafkastore.topic.replication.factor": "1",
      "kafkastore.init.timeout.ms": "20000",
      "kafkastore.security.protocol": "SASL_PLAINTEXT",
      "kafkastore.sasl.mechanism": "SCRAM-SHA-256",
      "kafkastore.sasl.jaas.config": jaas("scram.ScramLoginModule", { ...SASL_USERS.scram, password }),
    }).values;
  const registry = await startRegistry(settings(SASL_USERS.scram.password));
  try {
    const r = await fetch(`${registry.urls[0]}/subjects/sasl-value/versions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ schema: '"string"' }),
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { id: number }).id).toBeGreaterThan(0);
  } finally {
    await registry.stop();
  }
  const refused = await startRegistry(settings("wrong-password")).then(
    async (r) => {
      await r.stop();
      return undefined;
    },
    (err: Error) => err.message,
  );
  expect(refused).toMatch(/SASL|authenticat/i);
  expect(refused).not.toContain("wrong-password");
}, 90_000);

test("a connect worker runs a pipeline over SASL/PLAIN", async () => {
  const input = join(dir, "in.txt");
  writeFileSync(input, "a\nb\nc\n");
  const sasl = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "PLAIN",
    "sasl.jaas.config": jaas("plain.PlainLoginModule", SASL_USERS.plain),
  };
  connect = await startTestConnect("kafka", {
    "bootstrap.servers": kafka.bootstrap,
    ...sasl,
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
  });
  const api = connectClient(connect.url);
  expect(
    (
      await api.post("/connectors", {
        name: "sasl-src",
        config: { "connector.class": "FileStreamSource", file: input, topic: "sasl-lines" },
      })
    ).status,
  ).toBe(201);
  // Read back with our own authenticated client.
  const reader = new KafkaBroker({ bootstrapServers: [kafka.bootstrap], security: clientSecurity(sasl) });
  await reader.connect();
  try {
    const values = await waitFor(
      "three lines in the topic",
      async () => {
        const records = (await reader.describeTopic("sasl-lines")) ? await reader.fetch("sasl-lines", 0, 0) : [];
        return records.length === 3 ? records.map((r) => new TextDecoder().decode(r.value!)) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(values).toEqual(["a", "b", "c"]);
  } finally {
    await reader.close();
  }
}, 90_000);

test("the registry and a connect worker over SSL (the broker's CA as a PEM trust store)", async () => {
  const ssl = kafka.ssl!;
  writeFileSync(join(dir, "kafka-ca.pem"), ssl.ca);
  const tls = {
    "security.protocol": "SSL",
    "ssl.truststore.location": join(dir, "kafka-ca.pem"),
    "ssl.truststore.type": "PEM",
  };
  const registry = await startRegistry(
    registrySettingsDefinition.parse({
      listeners: `http://127.0.0.1:${freePort()}`,
      "kafkastore.bootstrap.servers": ssl.bootstrap,
      "kafkastore.topic": "_schemas_ssl",
      "kafkastore.topic.replication.factor": "1",
      ...Object.fromEntries(Object.entries(tls).map(([k, v]) => [`kafkastore.${k}`, v])),
    }).values,
  );
  try {
    const r = await fetch(`${registry.urls[0]}/subjects/ssl-value/versions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ schema: '"int"' }),
    });
    expect(r.status).toBe(200);
  } finally {
    await registry.stop();
  }
  const input = join(dir, "ssl-in.txt");
  writeFileSync(input, "x\ny\n");
  const worker = await startTestConnect("kafka", {
    "bootstrap.servers": ssl.bootstrap,
    ...tls,
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
  });
  try {
    expect(
      (
        await connectClient(worker.url).post("/connectors", {
          name: "ssl-src",
          config: { "connector.class": "FileStreamSource", file: input, topic: "ssl-lines" },
        })
      ).status,
    ).toBe(201);
    const reader = new KafkaBroker({ bootstrapServers: [ssl.bootstrap], security: clientSecurity(tls) });
    await reader.connect();
    try {
      await waitFor(
        "two lines over SSL",
        async () =>
          (await reader.describeTopic("ssl-lines")) ? (await reader.fetch("ssl-lines", 0, 0)).length === 2 : false,
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    } finally {
      await reader.close();
    }
  } finally {
    await worker.stop();
  }
}, 90_000);
