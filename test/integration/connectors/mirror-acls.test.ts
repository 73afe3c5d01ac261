// MirrorSourceConnector copies topic ACLs (sync.topic.acls.enabled, on by default) between two Kafka clusters
// that enforce ACLs (StandardAuthorizer), as Kafka 4.1's connector does: the source's LITERAL ACLs on topics it
// replicates, ALLOW WRITE left out, ALLOW ALL as ALLOW READ, DENY ones as they are, onto the remote topic; an
// ACL added on the source later reaches the target at the next sync. (A source without an authorizer: the
// connector logs it once and replicates on, which mirror-source.test.ts runs with the setting at its default.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TopicAcl } from "#src/broker/broker.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { catalog } from "#src/catalog.ts";
import { startConnectDistributed, type RunningConnect } from "#src/connect/runtime/server.ts";
import { workerSettings } from "#src/connect/runtime/worker/worker-config.ts";
import { connectClient } from "../../fixtures/connect.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const TASK_THREAD = new URL("../../../src/task-thread.ts", import.meta.url).href;
const BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter";

let source: KafkaCluster;
let target: KafkaCluster;
let sourceClient: KafkaBroker;
let targetClient: KafkaBroker;
let worker: RunningConnect | undefined;
const dir = mkdtempSync(join(tmpdir(), "sluice-mirror-acls-"));

const acl = (over: Partial<TopicAcl>): TopicAcl => ({
  topic: "orders",
  patternType: "LITERAL",
  principal: "User:alice",
  host: "*",
  operation: "READ",
  permission: "ALLOW",
  ...over,
});

const key = (a: TopicAcl) => [a.topic, a.patternType, a.principal, a.host, a.operation, a.permission].join(" ");
const sorted = (acls: TopicAcl[]) => [...acls].sort((x, y) => key(x).localeCompare(key(y)));

beforeAll(async () => {
  [source, target] = await Promise.all([startKafka({ authorizer: true }), startKafka({ authorizer: true })]);
  sourceClient = new KafkaBroker({ bootstrapServers: [source.bootstrap], clientId: "mirror-acls-source" });
  targetClient = new KafkaBroker({ bootstrapServers: [target.bootstrap], clientId: "mirror-acls-target" });
  await Promise.all([sourceClient.connect(), targetClient.connect()]);
}, 240_000);

afterAll(async () => {
  await worker?.stop().catch(() => undefined);
  await Promise.all([sourceClient?.close(), targetClient?.close()]);
  await Promise.all([source?.stop(), target?.stop()]);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

test("the source's topic ACLs reach the remote topics as Kafka's MirrorMaker 2 copies them", async () => {
  await sourceClient.createTopic({ name: "orders", partitions: 1, replicationFactor: 1 });
  await sourceClient.createTopic({ name: "audit", partitions: 1, replicationFactor: 1 });
  const onSource = [
    acl({ operation: "READ" }),
    acl({ operation: "ALL" }),
    acl({ operation: "WRITE" }),
    acl({ operation: "READ", permission: "DENY" }),
    acl({ operation: "DESCRIBE", principal: "User:bob", host: "10.0.0.1" }),
    // Not copied: a PREFIXED pattern, a topic the connector does not replicate.
    acl({ topic: "ord", patternType: "PREFIXED" }),
    acl({ topic: "audit" }),
  ];
  expect(await sourceClient.createTopicAcls(onSource)).toEqual([]);
  expect(sorted((await sourceClient.describeTopicAcls())!)).toEqual(sorted(onSource));
  expect(await targetClient.describeTopicAcls()).toEqual([]);

  const raw: Record<string, string> = {
    "bootstrap.servers": target.bootstrap,
    listeners: `http://127.0.0.1:${freePort()}`,
    "group.id": "mirror-acls",
    "config.storage.topic": "mirror-acls-configs",
    "offset.storage.topic": "mirror-acls-offsets",
    "status.storage.topic": "mirror-acls-status",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "data.dir": dir,
  };
  worker = await startConnectDistributed({
    settings: workerSettings.parse(raw).values,
    workerConfig: raw,
    catalog,
    taskThreadEntry: TASK_THREAD,
  });
  const api = connectClient(worker.urls[0]!);
  const created = await api.put("/connectors/mm2/config", {
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "source.cluster.alias": "primary",
    "target.cluster.alias": "backup",
    "source.cluster.bootstrap.servers": source.bootstrap,
    "target.cluster.bootstrap.servers": target.bootstrap,
    "key.converter": BYTES,
    "value.converter": BYTES,
    topics: "orders,late",
    "replication.factor": "1",
    "offset-syncs.topic.replication.factor": "1",
    "refresh.topics.interval.seconds": "1",
    // sync.topic.acls.enabled at its default (true)
    "sync.topic.acls.interval.seconds": "1",
  });
  expect(created.status).toBe(201);
  await api.waitForState("mm2", "RUNNING", 1);

  // READ and ALL→READ are one binding; ALLOW WRITE stays home; DENY READ and bob's DESCRIBE (his host) come.
  const expected = [
    acl({ topic: "primary.orders" }),
    acl({ topic: "primary.orders", permission: "DENY" }),
    acl({ topic: "primary.orders", operation: "DESCRIBE", principal: "User:bob", host: "10.0.0.1" }),
  ];
  const synced = async (want: TopicAcl[]) =>
    waitFor(
      `${want.length} ACLs on the target`,
      async () => {
        const got = sorted((await targetClient.describeTopicAcls()) ?? []);
        return Bun.deepEquals(got, sorted(want)) ? got : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}; the target has ${JSON.stringify(await targetClient.describeTopicAcls())}`);
    });
  expect(await synced(expected)).toEqual(sorted(expected));

  // An ACL added on the source later (here for a topic that does not exist yet, as Kafka's copies those too)
  // is copied at the next sync.
  expect(
    await sourceClient.createTopicAcls([acl({ topic: "late", operation: "ALL", principal: "User:carol" })]),
  ).toEqual([]);
  const more = [...expected, acl({ topic: "primary.late", principal: "User:carol" })];
  expect(await synced(more)).toEqual(sorted(more));
}, 240_000);
