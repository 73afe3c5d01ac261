// Which Kafka client a connector's tasks get: the worker's, unless the connector overrides its
// security settings; and what a connector may not override.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Broker } from "#src/broker/broker.ts";
import { clientSecurity } from "#src/broker/client-security.ts";
import type { BrokerChoice } from "#src/broker/index.ts";
import { ConnectorClients } from "#src/connect/runtime/worker/connector-clients.ts";
import { ConfigError } from "#src/platform/settings.ts";

const worker = {
  "security.protocol": "SASL_PLAINTEXT",
  "sasl.mechanism": "OAUTHBEARER",
  "sasl.login.callback.handler.class": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
  "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
  "sasl.jaas.config":
    'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="worker" clientSecret="w";',
};
const choice: BrokerChoice = {
  bootstrapServers: ["127.0.0.1:9"],
  dataDir: "/nonexistent",
  clientId: "connect",
  security: clientSecurity(worker),
  securitySettings: worker,
};
const shared = { kind: "kafka" } as Broker; // only compared: never called

test("a connector without security overrides shares the worker's client", async () => {
  const clients = new ConnectorClients(shared, choice);
  const lease = await clients.acquire({ "connector.class": "X", "producer.override.linger.ms": "5" });
  expect(lease.broker).toBe(shared);
  await lease.release();
});

test("a connector may not move the worker's token endpoint or login handler (the worker would fetch or read any URL for it)", async () => {
  const clients = new ConnectorClients(shared, choice);
  for (const [key, value] of [
    ["producer.override.sasl.oauthbearer.token.endpoint.url", "http://169.254.169.254/latest/meta-data/"],
    ["consumer.override.sasl.oauthbearer.token.endpoint.url", "file:///etc/shadow"],
    [
      "admin.override.sasl.login.callback.handler.class",
      "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
    ],
  ] as const) {
    const refused = await clients.acquire({ [key]: value }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain(key);
  }
});

test("client settings: fetch settings only share the worker's client; producer settings make the connector's own", async () => {
  // Clients made from this choice are embedded brokers in a temp dir: they connect at once (one at a time:
  // each holds the dir; client-settings.test.ts shows which settings make different clients).
  const dataDir = mkdtempSync(join(tmpdir(), "connector-clients-"));
  try {
    const clients = new ConnectorClients(shared, { ...choice, bootstrapServers: [], dataDir });
    const fetchOnly = await clients.acquire({ "consumer.override.max.poll.records": "10" });
    expect(fetchOnly.broker).toBe(shared);
    const own = await clients.acquire({ "producer.override.compression.type": "zstd" });
    const same = await clients.acquire({
      "producer.override.compression.type": "zstd",
      "producer.override.linger.ms": "9",
    });
    expect(own.broker).not.toBe(shared);
    expect(same.broker).toBe(own.broker); // linger.ms does not change the client
    for (const lease of [fetchOnly, own, same]) await lease.release();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("the worker's policy: a saved config with overrides it does not allow fails its tasks", async () => {
  const clients = new ConnectorClients(shared, choice, "Principal");
  const refused = await clients.acquire({ "producer.override.compression.type": "zstd" }).then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  expect(refused?.message).toBe(
    "Client Config Overrides not allowed: the 'Principal' policy does not allow 'producer.override.compression.type' to be overridden in the connector configuration",
  );
  const none = new ConnectorClients(shared, undefined, "None");
  await expect(none.acquire({ "consumer.override.max.poll.records": "1" })).rejects.toThrow("'None' policy");
});

test("the policy judges the overrides of the clients a connector has in Kafka Connect", async () => {
  const none = new ConnectorClients(shared, undefined, "None");
  // A source has no consumer; a sink without a dead letter queue no producer.
  expect((await none.acquire({ "consumer.override.max.poll.records": "1" }, "source")).broker).toBe(shared);
  expect((await none.acquire({ "producer.override.acks": "1" }, "sink")).broker).toBe(shared);
  await expect(
    none.acquire({ "producer.override.acks": "1", "errors.deadletterqueue.topic.name": "dlq" }, "sink"),
  ).rejects.toThrow("'None' policy");
});
