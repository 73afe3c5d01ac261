// Protobuf interop with Python's confluent-kafka: a schema importing a well-known type and another
// subject's schema, both directions, same ids, on the real Kafka fixture.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Deserializer, SchemaRegistryClient, Serializer } from "#src/serde/index.ts";
import { client } from "../fixtures/registry.ts";
import { compileProtoForPython, pythonSerde } from "../fixtures/python.ts";
import { consumeAll, interopWorld, produce, schemaId, type InteropWorld } from "./interop-helpers.ts";

const common = `syntax = "proto3";
package shop.common;

message Money {
  string currency = 1;
  int64 units = 2;
}
`;
const order = `syntax = "proto3";
package shop;

import "common.proto";
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  string customer = 2;
  shop.common.Money total = 3;
  google.protobuf.Timestamp created = 4;
  repeated string tags = 5;
  Status status = 6;

  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`;

// The same two orders as Python's proto3 JSON (ParseDict input / MessageToDict output) and as
// protobufjs objects (Sluice's input / output).
const pythonValues = [
  {
    id: "1",
    customer: "ada",
    total: { currency: "EUR", units: "12" },
    created: "2024-01-02T03:04:05Z",
    tags: ["a", "b"],
    status: "PAID",
  },
  { id: "2", customer: "bob", total: { currency: "USD", units: "3" }, created: "2024-05-06T07:08:09Z", tags: ["c"] },
];
const sluiceValues = [
  {
    id: "1",
    customer: "ada",
    total: { currency: "EUR", units: "12" },
    created: { seconds: "1704164645" },
    tags: ["a", "b"],
    status: "PAID",
  },
  { id: "2", customer: "bob", total: { currency: "USD", units: "3" }, created: { seconds: "1714979289" }, tags: ["c"] },
];

describe("Protobuf interop with Python confluent-kafka", () => {
  let world: InteropWorld;
  let dir: string;
  const references = [{ name: "common.proto", subject: "common.proto", version: 1 }];
  beforeAll(async () => {
    world = await interopWorld();
    dir = mkdtempSync(join(tmpdir(), "sluice-interop-proto-"));
    writeFileSync(join(dir, "common.proto"), common);
    writeFileSync(join(dir, "order.proto"), order);
    compileProtoForPython(dir, ["common.proto", "order.proto"]);
  }, 180_000);
  afterAll(() => world?.stop(), 60_000);

  const py = (mode: string, topic: string, input = "", count = 0) =>
    pythonSerde(
      [
        mode,
        "--format",
        "protobuf",
        "--bootstrap",
        world.bootstrap,
        "--registry",
        world.sr.url,
        "--topic",
        topic,
        "--proto-dir",
        dir,
        "--proto-module",
        "order_pb2",
        "--message",
        "Order",
        ...(count ? ["--count", String(count)] : []),
      ],
      input,
    );

  test("Python serializes (registering the import as its own subject), Sluice deserializes; ids agree", async () => {
    const topic = `proto-py-to-sluice-${Date.now()}`;
    const [out] = (await py("produce", topic, pythonValues.map((v) => JSON.stringify(v)).join("\n"))) as {
      ids: number[];
    }[];
    // Python registered common.proto under its import path and referenced it.
    const registered = (await client(world.sr.url).get(`/subjects/${topic}-value/versions/latest`)).body;
    expect(registered.schemaType).toBe("PROTOBUF");
    expect(registered.references).toEqual(references);
    const records = await consumeAll(world, topic, pythonValues.length);
    const decoded = await Promise.all(records.map((r) => new Deserializer(world.client()).deserialize(topic, r)));
    expect(decoded).toEqual(sluiceValues);
    // Python registers a base64 descriptor, whose canonical text names types fully qualified; as with
    // Confluent, the .proto text finds that same schema when both sides are normalized.
    const normalizing = new SchemaRegistryClient({ "schema.registry.url": world.sr.url, "normalize.schemas": true });
    const bytes = await new Serializer(normalizing, {
      schemaType: "PROTOBUF",
      schema: order,
      references,
      messageName: "shop.Order",
    }).serialize(topic, sluiceValues[0]);
    expect(schemaId(bytes)).toBe(out!.ids[0]!);
    expect(Buffer.from(bytes).toString("hex")).toBe(Buffer.from(records[0]!).toString("hex"));
  }, 120_000);

  test("Sluice serializes, Python deserializes", async () => {
    const topic = `proto-sluice-to-py-${Date.now()}`;
    const serializer = new Serializer(world.client(), {
      schemaType: "PROTOBUF",
      schema: order,
      references,
      messageName: "shop.Order",
    });
    const framed = await Promise.all(sluiceValues.map((v) => serializer.serialize(topic, v)));
    await produce(world, topic, framed);
    const out = (await py("consume", topic, "", sluiceValues.length)) as { id: number; value: unknown }[];
    expect(out.map((o) => o.value)).toEqual(pythonValues);
    expect(out.map((o) => o.id)).toEqual(framed.map(schemaId));
  }, 120_000);
});
