// Confluent's DEK registry (/dek-registry/v1/keks) over real HTTP, on real Kafka and on the embedded
// broker: the API and its errors, the `_dek_registry_keys` records in Confluent's layout, a restart,
// a follower forwarding writes to the leader, and per-user permissions.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decoder } from "#src/broker/broker.ts";
import { jsonCall } from "../../fixtures/http.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type BrokerKind,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { karapaceUser } from "../../fixtures/karapace-auth.ts";

const KEKS = "/dek-registry/v1/keks";
let topicCounter = 0;
/** Each registry its own DEK topic. */
const dekTopic = () => `_dek_registry_keys_${process.pid}_${Date.now()}_${topicCounter++}`;

describe.each(["kafka", "embedded"] as BrokerKind[])("DEK registry on %s", (kind) => {
  let place: RegistryPlace;
  let registry: TestRegistry;
  let topic: string;
  let c: ReturnType<typeof client>;

  beforeAll(async () => {
    place = await registryPlace(kind);
    topic = dekTopic();
    registry = await startTestRegistry(place, { "dek.registry.topic": topic });
    c = client(registry.url);
  });
  afterAll(async () => {
    await registry?.stop();
    if (place) removePlace(place);
  });

  test("a KEK and a DEK as Confluent's entities; versions, latest and the deleted listings", async () => {
    const kek = await c.post(KEKS, {
      name: "orders-kek",
      kmsType: "local-kms",
      kmsKeyId: "k1",
      kmsProps: { secret: "s3cret" },
      doc: "orders",
    });
    expect(kek.status).toBe(200);
    expect(Object.keys(kek.body)).toEqual(["name", "kmsType", "kmsKeyId", "kmsProps", "doc", "shared", "ts"]);
    expect(kek.body).toMatchObject({
      name: "orders-kek",
      kmsType: "local-kms",
      kmsKeyId: "k1",
      kmsProps: { secret: "s3cret" },
      doc: "orders",
      shared: false,
    });
    expect((await c.get(`${KEKS}/orders-kek`)).body).toEqual(kek.body);

    const dek1 = await c.post(`${KEKS}/orders-kek/deks/orders-value`, {
      version: 1,
      algorithm: "AES256_GCM",
      encryptedKeyMaterial: "d3JhcHBlZA==",
    });
    expect(dek1.status).toBe(200);
    expect(Object.keys(dek1.body)).toEqual([
      "kekName",
      "subject",
      "version",
      "algorithm",
      "encryptedKeyMaterial",
      "ts",
    ]);
    const dek2 = await c.post(`${KEKS}/orders-kek/deks/orders-value`, { version: 2, encryptedKeyMaterial: "c2Vjb25k" });
    expect(dek2.body).toMatchObject({ version: 2, algorithm: "AES256_GCM" });
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value`)).body).toEqual(dek1.body);
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value/versions/latest`)).body).toEqual(dek2.body);
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value/versions`)).body).toEqual([1, 2]);
    expect((await c.get(`${KEKS}/orders-kek/deks`)).body).toEqual(["orders-value"]);
    expect((await c.get(`${KEKS}?subjectPrefix=orders`)).body).toEqual(["orders-kek"]);

    expect((await c.delete(`${KEKS}/orders-kek/deks/orders-value/versions/2`)).status).toBe(204);
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value/versions`)).body).toEqual([1]);
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value/versions?deleted=true`)).body).toEqual([1, 2]);
    const deleted = await c.get(`${KEKS}/orders-kek/deks/orders-value/versions/2?deleted=true`);
    expect(deleted.body).toMatchObject({ version: 2, deleted: true });
    expect((await c.post(`${KEKS}/orders-kek/deks/orders-value/versions/2/undelete`)).status).toBe(204);
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value/versions`)).body).toEqual([1, 2]);
  });

  test("a shared local-kms KEK: the registry makes the DEK and answers its raw key material", async () => {
    expect(
      (
        await c.post(`${KEKS}?testSharing=true`, {
          name: "shared-kek",
          kmsType: "local-kms",
          kmsKeyId: "k2",
          kmsProps: { secret: "shh" },
          shared: true,
        })
      ).status,
    ).toBe(200);
    const made = await c.post(`${KEKS}/shared-kek/deks/payments-value`, { algorithm: "AES128_GCM" });
    expect(made.status).toBe(200);
    expect(Buffer.from(made.body.keyMaterial, "base64")).toHaveLength(18);
    const read = await c.get(`${KEKS}/shared-kek/deks/payments-value?algorithm=AES128_GCM`);
    expect(read.body.keyMaterial).toBe(made.body.keyMaterial);
    expect((await c.post(`${KEKS}/shared-kek/test`)).body).toMatchObject({
      name: "shared-kek",
      type: "KEK",
      deleted: false,
    });
  });

  test("bad input gets Confluent's errors, never JavaScript's", async () => {
    const cases: [Promise<{ status: number; body: unknown }>, number, number, string][] = [
      [c.get(`${KEKS}/missing`), 404, 40470, "Key 'missing' not found"],
      [c.get(`${KEKS}/9lives`), 422, 42271, "Invalid or missing value for field 'name' of key"],
      [c.post(KEKS, { name: "k" }), 422, 42271, "Invalid or missing value for field 'kmsKeyId' of key"],
      [
        c.post(KEKS, { name: "k", kmsKeyId: "x", kmsType: "local-kms", kmsProps: [1] }),
        422,
        42271,
        "Invalid or missing value for field 'kmsProps' of key",
      ],
      [
        c.post(KEKS, {
          name: "orders-kek",
          kmsType: "local-kms",
          kmsKeyId: "k1",
          kmsProps: { secret: "s3cret" },
          doc: "orders",
        }),
        409,
        40971,
        "Key 'orders-kek' already exists; use a different value",
      ],
      [
        c.post(`${KEKS}/orders-kek/deks/other-value`, {}),
        422,
        42271,
        "Invalid or missing value for field 'encryptedKeyMaterial' of key",
      ],
      [
        c.post(`${KEKS}/orders-kek/deks/other-value`, { algorithm: "DES", encryptedKeyMaterial: "QQ==" }),
        422,
        42271,
        "Invalid or missing value for field 'algorithm' of key",
      ],
      [c.get(`${KEKS}/orders-kek/deks/orders-value?algorithm=DES`), 404, 404, "HTTP 404 Not Found"],
      [
        c.get(`${KEKS}/orders-kek/deks/orders-value/versions/0`),
        422,
        42202,
        "The specified version '0' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"",
      ],
      [c.get(`${KEKS}/orders-kek/deks/nobody-value/versions/1`), 404, 40470, "Key 'nobody-value' not found"],
      [c.delete(`${KEKS}/orders-kek`), 422, 42272, "One or more references exist to the key 'orders-kek'"],
      [
        c.delete(`${KEKS}/orders-kek/deks/orders-value?permanent=true`),
        404,
        40471,
        "Key 'orders-value' was not deleted first before being permanently deleted",
      ],
      [c.post(`${KEKS}`, "{not json"), 400, 400, ""],
      [c.post(`${KEKS}`, [1, 2]), 400, 400, ""],
      [
        c.put(`${KEKS}/orders-kek`, { shared: "yes" }),
        422,
        42271,
        "Invalid or missing value for field 'shared' of key",
      ],
    ];
    for (const [reply, status, code, message] of cases) {
      const r = await reply;
      expect({ status: r.status, code: (r.body as { error_code: number }).error_code }).toEqual({ status, code });
      expect(Object.keys(r.body as object)).toEqual(["error_code", "message"]);
      if (message) expect((r.body as { message: string }).message).toBe(message);
      expect((r.body as { message: string }).message).not.toMatch(/TypeError|undefined|at .*\.ts/);
    }
    // Found by the OpenAPI fuzzer: a kmsType naming a member of Object's prototype once reached a
    // JavaScript error (500); it is a KMS type like any other the registry does not know.
    expect((await c.post(KEKS, { name: "proto-kek", kmsKeyId: "x", kmsType: "__proto__" })).body).toMatchObject({
      name: "proto-kek",
      kmsType: "__proto__",
    });
    // A KMS the registry cannot reach: Confluent's DEK generation error.
    expect(
      (
        await c.post(KEKS, {
          name: "aws-kek",
          kmsType: "aws-kms",
          kmsKeyId: "arn:aws:kms:eu-west-1:1:key/k",
          shared: true,
        })
      ).status,
    ).toBe(200);
    const cloud = await c.post(`${KEKS}/aws-kek/deks/s`, {});
    expect(cloud.status).toBe(500);
    expect(cloud.body).toEqual({
      error_code: 50070,
      message:
        "Could not generate encrypted dek for s: No KMS driver supports: aws-kms://arn:aws:kms:eu-west-1:1:key/k",
    });
  });

  test("the records in the topic are Confluent's KafkaDekRegistry records, and a restart reads them back", async () => {
    await c.post(KEKS, { name: "format-kek", kmsType: "local-kms", kmsKeyId: "fk", kmsProps: { secret: "x", a: "1" } });
    await c.post(`${KEKS}/format-kek/deks/format-value`, { encryptedKeyMaterial: "Zm9ybWF0" });
    await c.delete(`${KEKS}/format-kek/deks/format-value`);
    await c.delete(`${KEKS}/format-kek/deks/format-value?permanent=true`);
    const records = (await registry.registry.broker.fetch(topic, 0, 0, { maxWaitMs: 0 })).map((r) => [
      r.key && decoder.decode(r.key),
      r.value && decoder.decode(r.value),
    ]);
    // Written out by hand from Confluent's storage classes: creator properties in order, then `type`.
    const kekKey = '{"tenant":"default","name":"format-kek","type":"KEK"}';
    const dekKey =
      '{"tenant":"default","kekName":"format-kek","subject":"format-value","algorithm":"AES256_GCM","version":1,"type":"DEK"}';
    const mine = records.filter(([k]) => k === kekKey || k === dekKey);
    expect(mine).toEqual([
      [
        kekKey,
        '{"name":"format-kek","kmsType":"local-kms","kmsKeyId":"fk","kmsProps":{"a":"1","secret":"x"},"shared":false,"deleted":false,"type":"KEK"}',
      ],
      [
        dekKey,
        '{"kekName":"format-kek","subject":"format-value","algorithm":"AES256_GCM","version":1,"encryptedKeyMaterial":"Zm9ybWF0","deleted":false,"type":"DEK"}',
      ],
      [
        dekKey,
        '{"kekName":"format-kek","subject":"format-value","algorithm":"AES256_GCM","version":1,"encryptedKeyMaterial":"Zm9ybWF0","deleted":true,"type":"DEK"}',
      ],
      [dekKey, null],
    ]);

    const before = (await c.get(`${KEKS}?deleted=true`)).body;
    const kekBefore = (await c.get(`${KEKS}/orders-kek`)).body;
    await registry.stop();
    registry = await registry.restart();
    c = client(registry.url);
    expect((await c.get(`${KEKS}?deleted=true`)).body).toEqual(before);
    expect((await c.get(`${KEKS}/orders-kek`)).body).toEqual(kekBefore);
    expect((await c.get(`${KEKS}/orders-kek/deks/orders-value/versions`)).body).toEqual([1, 2]);
  });
});

describe("DEK registry in a two-instance cluster on Kafka", () => {
  let place: RegistryPlace;
  const instances: TestRegistry[] = [];

  beforeAll(async () => {
    place = await registryPlace("kafka");
    const shared = {
      "dek.registry.topic": dekTopic(),
      "host.name": "127.0.0.1",
      "schema.registry.group.id": `dek-${process.pid}-${Date.now()}`,
    };
    for (let i = 0; i < 2; i++) instances.push(await startTestRegistry(place, shared));
    await Promise.all(instances.map((r) => r.registry.cluster.firstElection));
  });
  afterAll(async () => {
    for (const r of instances) await r.stop();
  });

  test("a follower forwards writes to the leader; both answer them", async () => {
    const leader = instances.find((r) => r.registry.cluster.isLeader)!;
    const follower = instances.find((r) => !r.registry.cluster.isLeader)!;
    expect(leader).toBeDefined();
    expect(follower).toBeDefined();
    const f = client(follower.url);
    const created = await f.post(KEKS, {
      name: "forwarded",
      kmsType: "local-kms",
      kmsKeyId: "k",
      kmsProps: { secret: "s" },
    });
    expect(created.status).toBe(200);
    expect((await client(leader.url).get(`${KEKS}/forwarded`)).body).toEqual(created.body);
    const dek = await f.post(`${KEKS}/forwarded/deks/fwd-value`, { encryptedKeyMaterial: "QQ==" });
    expect(dek.status).toBe(200);
    expect((await client(leader.url).get(`${KEKS}/forwarded/deks/fwd-value`)).body).toEqual(dek.body);
    expect((await f.delete(`${KEKS}/forwarded/deks/fwd-value`)).status).toBe(204);
    expect((await client(leader.url).get(`${KEKS}/forwarded/deks/fwd-value/versions?deleted=true`)).body).toEqual([1]);
    expect((await client(leader.url).get(`${KEKS}/forwarded/deks/fwd-value/versions`)).body).toEqual([]);
  });
});

describe("DEK registry permissions", () => {
  const PASSWORD = "dek-Secret-9";
  const dir = mkdtempSync(join(tmpdir(), "sluice-dek-permissions-"));
  const user = (username: string) => karapaceUser(username, PASSWORD);
  const authFile = {
    users: ["admin", "producer", "stranger"].map(user),
    permissions: [
      { username: "admin", operation: "Write", resource: "Kek:.*" },
      { username: "admin", operation: "Write", resource: "Subject:.*" },
      // What a producer encrypting orders needs: its KEK, and to read its subject.
      { username: "producer", operation: "Write", resource: "Kek:orders$" },
      { username: "producer", operation: "Read", resource: "Subject:orders-value$" },
      { username: "stranger", operation: "Read", resource: "Subject:.*" },
    ],
  };
  let place: RegistryPlace;
  let registry: TestRegistry;
  const call = (name: string, method: string, path: string, body?: unknown) =>
    jsonCall(registry.url + path, method, body, {
      authorization: `Basic ${Buffer.from(`${name}:${PASSWORD}`).toString("base64")}`,
      "content-type": "application/vnd.schemaregistry.v1+json",
    });
  const denied = (operation: string, resource: string) => ({
    error_code: 40301,
    message: `User is denied operation ${operation} on ${resource}`,
  });

  beforeAll(async () => {
    writeFileSync(join(dir, "auth.json"), JSON.stringify(authFile));
    place = await registryPlace("embedded");
    registry = await startTestRegistry(place, {
      "dek.registry.topic": dekTopic(),
      "authentication.permissions.file": join(dir, "auth.json"),
    });
    for (const name of ["orders", "payments"]) {
      expect(
        (
          await call("admin", "POST", KEKS, {
            name,
            kmsType: "local-kms",
            kmsKeyId: name,
            kmsProps: { secret: "s" },
            shared: true,
          })
        ).status,
      ).toBe(200);
      expect((await call("admin", "POST", `${KEKS}/${name}/deks/${name}-value`, {})).status).toBe(200);
    }
  });
  afterAll(async () => {
    await registry?.stop();
    if (place) removePlace(place);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a producer reaches its KEK and its subject's DEKs, nothing else", async () => {
    expect((await call("producer", "GET", `${KEKS}/orders`)).status).toBe(200);
    expect(
      (await call("producer", "GET", `${KEKS}/orders/deks/orders-value/versions/latest`)).body.keyMaterial,
    ).toBeString();
    expect((await call("producer", "POST", `${KEKS}/orders/deks/orders-value`, { version: 2 })).status).toBe(200);
    expect((await call("producer", "GET", KEKS)).body).toEqual(["orders"]);
    expect((await call("producer", "GET", `${KEKS}/orders/deks`)).body).toEqual(["orders-value"]);

    expect((await call("producer", "GET", `${KEKS}/payments`)).body).toEqual(denied("Read", "Kek: payments"));
    expect((await call("producer", "GET", `${KEKS}/payments/deks/payments-value`)).body).toEqual(
      denied("Read", "Kek: payments"),
    );
    expect((await call("producer", "POST", KEKS, { name: "mine", kmsType: "local-kms", kmsKeyId: "m" })).body).toEqual(
      denied("Write", "Kek: mine"),
    );
    expect((await call("producer", "DELETE", `${KEKS}/payments`)).status).toBe(403);
  });

  test("a KEK alone does not give a subject's keys; a subject alone does not give the KEK", async () => {
    // The producer's KEK, another subject's DEK (as if stored under it).
    expect((await call("admin", "POST", `${KEKS}/orders/deks/payments-value`, {})).status).toBe(200);
    expect((await call("producer", "GET", `${KEKS}/orders/deks/payments-value`)).body).toEqual(
      denied("Read", "Subject: payments-value"),
    );
    expect((await call("producer", "GET", `${KEKS}/orders/deks`)).body).toEqual(["orders-value"]);
    expect((await call("stranger", "GET", `${KEKS}/orders/deks/orders-value`)).body).toEqual(
      denied("Read", "Kek: orders"),
    );
    expect((await call("stranger", "GET", KEKS)).body).toEqual([]);
    expect((await call("admin", "GET", KEKS)).body).toEqual(["orders", "payments"]);
  });
});
