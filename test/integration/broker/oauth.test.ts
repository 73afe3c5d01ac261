// SASL/OAUTHBEARER on a Kafka 4.1 broker that validates RS256 JWTs against an OpenID provider's JWKS:
// the registry (kafkastore.*, with the JAAS options of Kafkas before 4.1) and a distributed connect
// worker (Kafka 4.1's sasl.oauthbearer.client.credentials.* settings) get client_credentials tokens
// from the provider's token endpoint. A token living a few seconds, on a broker whose sessions end every
// few seconds (connections.max.reauth.ms), keeps a client working: tokens are refreshed and connections
// re-authenticate. A wrong client secret and Kerberos are refused at start with a clear message.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalog } from "#src/catalog.ts";
import { clientSecurity } from "#src/broker/client-security.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { startConnectDistributed, startConnectStandalone } from "#src/connect/runtime/server.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { startRegistry } from "#src/registry/server.ts";
import { registrySettingsDefinition } from "#src/registry/settings.ts";
import { CONNECT_FILE_JAR, connectClient } from "../../fixtures/connect.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { startOidcProvider, type OidcProvider } from "../../fixtures/oidc-provider.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
const HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";
const TASK_THREAD = new URL("../../../src/task-thread.ts", import.meta.url).href;
/** Every session on the broker ends after this long unless the client re-authenticates. */
const REAUTH_MS = 4000;

let oidc: OidcProvider;
let kafka: KafkaCluster;
const dir = mkdtempSync(join(tmpdir(), "sluice-oauth-"));

beforeAll(async () => {
  oidc = startOidcProvider();
  oidc.addClient("registry", "registry-secret", { aud: "kafka" });
  oidc.addClient("connect", "connect-secret", { aud: "kafka" });
  oidc.addClient("brief", "brief-secret", { aud: "kafka", expiresIn: 6 });
  oidc.addClient("writer", "writer-secret", { aud: "kafka" });
  kafka = await startKafka({
    oauth: { jwksUrl: oidc.jwksUrl, issuer: oidc.issuer, audience: "kafka", reauthMs: REAUTH_MS },
  });
  if (!kafka.owned) throw new Error("this test needs the fixture's own OAuth broker, not KAFKA_BOOTSTRAP_SERVERS");
}, 120_000);
afterAll(async () => {
  await kafka?.stop();
  oidc?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Kafka 4.1's client settings (KIP-1139) for a client of the provider. */
function oauthClient(id: string, secret: string): Record<string, string> {
  return {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": HANDLER,
    "sasl.oauthbearer.token.endpoint.url": oidc.tokenUrl,
    "sasl.oauthbearer.client.credentials.client.id": id,
    "sasl.oauthbearer.client.credentials.client.secret": secret,
    "sasl.jaas.config": `${MODULE} required;`,
  };
}

function registrySettings(secret: string, extra: Record<string, string> = {}) {
  return registrySettingsDefinition.parse({
    listeners: `http://127.0.0.1:${freePort()}`,
    "kafkastore.bootstrap.servers": kafka.bootstrap,
    "kafkastore.topic.replication.factor": "1",
    "kafkastore.init.timeout.ms": "20000",
    "kafkastore.security.protocol": "SASL_PLAINTEXT",
    "kafkastore.sasl.mechanism": "OAUTHBEARER",
    "kafkastore.sasl.login.callback.handler.class": HANDLER,
    "kafkastore.sasl.oauthbearer.token.endpoint.url": oidc.tokenUrl,
    "kafkastore.sasl.jaas.config": `${MODULE} required clientId="registry" clientSecret="${secret}" scope="schemas";`,
    ...extra,
  }).values;
}

test("the registry stores and reads schemas over OAUTHBEARER (client id and secret as JAAS options)", async () => {
  const before = oidc.requests.get("/token") ?? 0;
  const registry = await startRegistry(registrySettings("registry-secret"));
  try {
    const r = await fetch(`${registry.urls[0]}/subjects/oauth-value/versions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ schema: '"string"' }),
    });
    expect(r.status).toBe(200);
    const { id } = (await r.json()) as { id: number };
    const read = await fetch(`${registry.urls[0]}/schemas/ids/${id}`);
    expect(((await read.json()) as { schema: string }).schema).toBe('"string"');
  } finally {
    await registry.stop();
  }
  expect(oidc.requests.get("/token")! - before).toBeGreaterThanOrEqual(1);
}, 90_000);

test("a wrong client secret stops the registry at start, naming the token endpoint's answer and not the secret", async () => {
  const refused = await startRegistry(registrySettings("wrong-secret")).then(
    async (r) => {
      await r.stop();
      return undefined;
    },
    (err: Error) => err.message,
  );
  expect(refused).toContain(oidc.tokenUrl);
  expect(refused).toContain("401");
  expect(refused).toContain("invalid_client");
  expect(refused).not.toContain("wrong-secret");
}, 60_000);

test("Kerberos (GSSAPI, Kafka's default mechanism) is refused at start by name", async () => {
  const settings = registrySettings("registry-secret", { "kafkastore.sasl.mechanism": "" });
  const refused = await startRegistry(settings).then(
    async (r) => {
      await r.stop();
      return "started";
    },
    (err: Error) => err.message,
  );
  expect(refused).toContain("kafkastore.sasl.mechanism");
  expect(refused).toContain("Kerberos");
}, 30_000);

test("a token that expires every few seconds is refreshed, and connections re-authenticate with the new one", async () => {
  const broker = new KafkaBroker({
    bootstrapServers: [kafka.bootstrap],
    clientId: "brief",
    security: clientSecurity(oauthClient("brief", "brief-secret")),
  });
  const before = oidc.requests.get("/token") ?? 0;
  // The Kafka client's own events: re-authentications on an open connection, and new connections.
  const counts = { reauthenticated: 0, connected: 0 };
  const watch = (message: unknown) => {
    const { instance } = message as { instance: { on(event: string, listener: () => void): void } };
    instance.on("client:broker:sasl:authentication:extended", () => counts.reauthenticated++);
    instance.on("client:broker:connect", () => counts.connected++);
  };
  subscribe("plt:kafka:instances", watch);
  await broker.connect();
  unsubscribe("plt:kafka:instances", watch);
  try {
    await broker.createTopic({ name: "oauth-brief", partitions: 1, replicationFactor: 1 });
    // Three token lifetimes, several broker sessions: each write and read must still be served.
    const until = Date.now() + 18_000;
    let written = 0;
    while (Date.now() < until) {
      await broker.produce("oauth-brief", [{ key: null, value: new TextEncoder().encode(String(written)) }]);
      written++;
      expect((await broker.fetch("oauth-brief", 0, written - 1, { maxWaitMs: 100 })).length).toBeGreaterThanOrEqual(1);
      await Bun.sleep(500); // paces the writes over the tokens' lifetimes, not a synchronisation
    }
    expect((await broker.fetch("oauth-brief", 0, 0)).length).toBe(written);
    // 6 s tokens refreshed half-way: at least four over 18 s.
    expect(oidc.requests.get("/token")! - before).toBeGreaterThanOrEqual(4);
    // Sessions of at most 4 s over 18 s: the open connections re-authenticated (KIP-368), more often
    // than connections were opened.
    expect(counts.reauthenticated).toBeGreaterThanOrEqual(4);
    expect(counts.reauthenticated).toBeGreaterThan(counts.connected);
  } finally {
    await broker.close();
  }
}, 60_000);

test("a worker's producer./consumer. security settings are its tasks' client's: a wrong secret there stops the worker at start", async () => {
  const raw: Record<string, string> = {
    listeners: `http://127.0.0.1:${freePort()}`,
    "bootstrap.servers": kafka.bootstrap,
    "data.dir": join(dir, "data-prefixed"),
    "offset.storage.file.filename": join(dir, "prefixed.offsets"),
    ...oauthClient("connect", "connect-secret"),
    "producer.sasl.oauthbearer.client.credentials.client.id": "writer",
    "producer.sasl.oauthbearer.client.credentials.client.secret": "wrong-producer-secret",
    "consumer.sasl.oauthbearer.client.credentials.client.id": "writer",
    "consumer.sasl.oauthbearer.client.credentials.client.secret": "wrong-producer-secret",
  };
  const refused = await startConnectStandalone({
    settings: workerSettings.parse(raw).values,
    workerConfig: raw,
    connectorFiles: [],
    catalog,
  }).then(
    async (c) => {
      await c.stop();
      return "started";
    },
    (err: Error) => err.message,
  );
  expect(refused).toContain("401");
  expect(refused).not.toContain("wrong-producer-secret");
}, 30_000);

test("a distributed connect worker (Kafka 4.1's client credential settings) keeps its internal topics and runs connectors, one with its own client credentials (producer.override.), and MirrorMaker 2 with a token endpoint the worker allows", async () => {
  const input = join(dir, "in.txt");
  writeFileSync(input, "a\nb\nc\n");
  const raw: Record<string, string> = {
    listeners: `http://127.0.0.1:${freePort()}`,
    "bootstrap.servers": kafka.bootstrap,
    "data.dir": join(dir, "data"),
    "group.id": "oauth-cluster",
    "config.storage.topic": "oauth-configs",
    "offset.storage.topic": "oauth-offsets",
    "status.storage.topic": "oauth-status",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "offset.flush.interval.ms": "500",
    "plugin.path": `${join(dir, "plugins")},${join(dir, "libs", CONNECT_FILE_JAR)}`,
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    ...oauthClient("connect", "connect-secret"),
  };
  // Set before the worker starts, as a user exports it: its task threads see the environment they start with.
  const kafkaOpts = process.env.KAFKA_OPTS;
  process.env.KAFKA_OPTS = `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${oidc.tokenUrl}`;
  const connect = await startConnectDistributed({
    settings: workerSettings.parse(raw).values,
    workerConfig: raw,
    catalog,
    taskThreadEntry: TASK_THREAD,
  });
  const reader = new KafkaBroker({
    bootstrapServers: [kafka.bootstrap],
    security: clientSecurity(oauthClient("connect", "connect-secret")),
  });
  try {
    const api = connectClient(connect.urls[0]!);
    const created = await waitFor(
      "connector created",
      async () => {
        const r = await api.post("/connectors", {
          name: "oauth-src",
          config: { "connector.class": "FileStreamSource", file: input, topic: "oauth-lines" },
        });
        return r.status === 409 ? undefined : r;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(created.status).toBe(201);
    await reader.connect();
    const values = await waitFor(
      "three lines in the topic",
      async () => {
        const records = (await reader.describeTopic("oauth-lines")) ? await reader.fetch("oauth-lines", 0, 0) : [];
        return records.length === 3 ? records.map((r) => new TextDecoder().decode(r.value!)) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(values).toEqual(["a", "b", "c"]);
    expect((await reader.describeTopic("oauth-configs"))?.partitions).toBe(1);

    // A connector with a Kafka identity of its own, as Kafka Connect's client overrides give one.
    const override = (secret: string) => ({
      "producer.override.sasl.oauthbearer.client.credentials.client.id": "writer",
      "producer.override.sasl.oauthbearer.client.credentials.client.secret": secret,
    });
    const create = (name: string, config: Record<string, string>) =>
      waitFor(
        `${name} created`,
        async () => {
          const r = await api.post("/connectors", {
            name,
            config: { "connector.class": "FileStreamSource", file: input, ...config },
          });
          return r.status === 409 ? undefined : r;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    expect((await create("writer-src", { topic: "writer-lines", ...override("writer-secret") })).status).toBe(201);
    await waitFor(
      "three lines written with the connector's own credentials",
      async () =>
        (await reader.describeTopic("writer-lines")) ? (await reader.fetch("writer-lines", 0, 0)).length === 3 : false,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    // Its own credentials are the ones used: a wrong secret fails its task, saying why.
    expect((await create("bad-writer-src", { topic: "bad-writer-lines", ...override("not-the-secret") })).status).toBe(
      201,
    );
    const failed = await waitFor(
      "the task failed",
      async () => {
        const status = (await api.get("/connectors/bad-writer-src/status")).body as {
          tasks?: { state: string; trace?: string }[];
        };
        return status.tasks?.[0]?.state === "FAILED" ? status.tasks[0] : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(failed.trace).toContain("the connector's own Kafka client (its producer.override.");
    expect(failed.trace).toContain("401");
    expect(failed.trace).toContain("invalid_client");
    expect(failed.trace).not.toContain("not-the-secret");

    // MirrorMaker 2 between two OAuth clusters (here the same one, under two aliases): a connector may
    // name a token endpoint for its clusters' logins only when the worker allows it, as Kafka 4 does.
    const clusters: Record<string, string> = {};
    for (const side of ["source", "target"]) {
      clusters[`${side}.cluster.bootstrap.servers`] = kafka.bootstrap;
      for (const [key, value] of Object.entries(oauthClient("writer", "writer-secret")))
        clusters[`${side}.cluster.${key}`] = value;
    }
    const mirror = {
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      "source.cluster.alias": "primary",
      "target.cluster.alias": "backup",
      ...clusters,
      topics: "oauth-lines",
      "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
      "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
      "replication.factor": "1",
      "offset-syncs.topic.replication.factor": "1",
      "sync.topic.acls.enabled": "false",
    };
    const elsewhere = `${oidc.tokenUrl}?not-listed`;
    const refused = await api.put("/connectors/oauth-mirror/config", {
      ...mirror,
      "target.cluster.sasl.oauthbearer.token.endpoint.url": elsewhere,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      `${elsewhere} is not one (list it as -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=`,
    );
    const accepted = await api.put("/connectors/oauth-mirror/config", mirror);
    expect(accepted.body).toMatchObject({ name: "oauth-mirror" });
    const mirrored = await waitFor(
      "the lines mirrored as primary.oauth-lines",
      async () => {
        const records = (await reader.describeTopic("primary.oauth-lines"))
          ? await reader.fetch("primary.oauth-lines", 0, 0)
          : [];
        return records.length === 3 ? records.map((r) => new TextDecoder().decode(r.value!)) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(mirrored).toEqual(["a", "b", "c"]);
  } finally {
    if (kafkaOpts === undefined) delete process.env.KAFKA_OPTS;
    else process.env.KAFKA_OPTS = kafkaOpts;
    await reader.close();
    await connect.stop();
  }
}, 120_000);
