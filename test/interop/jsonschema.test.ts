// JSON Schema interop with Python's confluent-kafka: a schema with a `$ref` to another subject's
// schema, both directions, same ids, on the real Kafka fixture.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Deserializer, Serializer } from "#src/serde/index.ts";
import { client } from "../fixtures/registry.ts";
import { pythonSerde } from "../fixtures/python.ts";
import { consumeAll, interopWorld, produce, schemaId, type InteropWorld } from "./interop-helpers.ts";

const address = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "address.json",
  title: "Address",
  type: "object",
  properties: { street: { type: "string" }, city: { type: "string" } },
  required: ["city"],
};
const customer = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "Customer",
  type: "object",
  properties: {
    name: { type: "string" },
    age: { type: "integer", minimum: 0 },
    address: { $ref: "address.json" },
  },
  required: ["name"],
};
const values = [
  { name: "ada", age: 36, address: { street: "1 Main St", city: "London" } },
  { name: "bob", address: { city: "Paris" } },
];

describe("JSON Schema interop with Python confluent-kafka", () => {
  let world: InteropWorld;
  let dir: string;
  let references: { name: string; subject: string; version: number }[];
  beforeAll(async () => {
    world = await interopWorld();
    dir = mkdtempSync(join(tmpdir(), "sluice-interop-json-"));
    writeFileSync(join(dir, "customer.json"), JSON.stringify(customer));
    const reg = await client(world.sr.url).register("address", address, { schemaType: "JSON" });
    expect(reg.status).toBe(200);
    references = [{ name: "address.json", subject: "address", version: 1 }];
  }, 180_000);
  afterAll(() => world?.stop(), 60_000);

  const py = (mode: string, topic: string, extra: string[], input = "") =>
    pythonSerde(
      [
        mode,
        "--format",
        "json",
        "--bootstrap",
        world.bootstrap,
        "--registry",
        world.sr.url,
        "--topic",
        topic,
        ...extra,
      ],
      input,
    );

  test("Python serializes, Sluice deserializes; ids agree", async () => {
    const topic = `json-py-to-sluice-${Date.now()}`;
    const [out] = (await py(
      "produce",
      topic,
      ["--schema", join(dir, "customer.json"), "--references", JSON.stringify(references)],
      values.map((v) => JSON.stringify(v)).join("\n"),
    )) as { ids: number[] }[];
    const records = await consumeAll(world, topic, values.length);
    const decoded = await Promise.all(records.map((r) => new Deserializer(world.client()).deserialize(topic, r)));
    expect(decoded).toEqual(values);
    const bytes = await new Serializer(world.client(), { schemaType: "JSON", schema: customer, references }).serialize(
      topic,
      values[0],
    );
    expect(schemaId(bytes)).toBe(out!.ids[0]!);
  }, 120_000);

  test("Sluice serializes, Python deserializes", async () => {
    const topic = `json-sluice-to-py-${Date.now()}`;
    const serializer = new Serializer(world.client(), { schemaType: "JSON", schema: customer, references });
    const framed = await Promise.all(values.map((v) => serializer.serialize(topic, v)));
    await produce(world, topic, framed);
    const out = (await py("consume", topic, ["--count", String(values.length)])) as { id: number; value: unknown }[];
    expect(out.map((o) => o.value)).toEqual(values);
    expect(out.map((o) => o.id)).toEqual(framed.map(schemaId));
  }, 120_000);

  test("a value that breaks the schema (also through the $ref) is refused before sending", async () => {
    const serializer = new Serializer(world.client(), { schemaType: "JSON", schema: customer, references });
    await expect(serializer.serialize("json-bad", { name: "x", address: { street: "no city" } })).rejects.toThrow(
      /SerializationException|city/,
    );
    await expect(serializer.serialize("json-bad", { name: "x", age: -1 })).rejects.toThrow(/minimum|>= 0/);
  });
});
