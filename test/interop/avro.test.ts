// Avro interop with Python's confluent-kafka: Python serializes → Sluice deserializes, Sluice
// serializes → Python deserializes, same schema ids both ways, on the real Kafka fixture.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Deserializer, Serializer } from "#src/serde/index.ts";
import { pythonSerde } from "../fixtures/python.ts";
import { consumeAll, interopWorld, produce, schemaId, type InteropWorld } from "./interop-helpers.ts";

const schema = {
  type: "record",
  name: "Order",
  namespace: "shop",
  fields: [
    { name: "id", type: "long" },
    { name: "customer", type: "string" },
    { name: "amount", type: "double" },
    { name: "tags", type: { type: "array", items: "string" } },
    { name: "note", type: ["null", "string"], default: null },
    { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"] } },
  ],
};
const values = [
  { id: 1, customer: "ada", amount: 12.5, tags: ["a"], note: null, status: "NEW" },
  { id: 2, customer: "bob", amount: 3, tags: [], note: "gift", status: "PAID" },
];

describe("Avro interop with Python confluent-kafka", () => {
  let world: InteropWorld;
  let dir: string;
  beforeAll(async () => {
    world = await interopWorld();
    dir = mkdtempSync(join(tmpdir(), "sluice-interop-avro-"));
    writeFileSync(join(dir, "order.avsc"), JSON.stringify(schema));
  }, 180_000);
  afterAll(() => world?.stop(), 60_000);

  const py = (mode: string, topic: string, extra: string[] = [], input = "") =>
    pythonSerde(
      [
        mode,
        "--format",
        "avro",
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

  test("Python serializes, Sluice deserializes; the ids agree", async () => {
    const topic = `avro-py-to-sluice-${Date.now()}`;
    const [out] = (await py(
      "produce",
      topic,
      ["--schema", join(dir, "order.avsc")],
      values.map((v) => JSON.stringify(v)).join("\n"),
    )) as { ids: number[] }[];
    const records = await consumeAll(world, topic, values.length);
    const deserializer = new Deserializer(world.client());
    const decoded = await Promise.all(records.map((r) => deserializer.deserialize(topic, r)));
    expect(decoded.map((d) => ({ ...(d as object) }))).toEqual(values);
    // Sluice's serializer finds the schema Python registered: the same id.
    const bytes = await new Serializer(world.client(), { schema }).serialize(topic, values[0]);
    expect(schemaId(bytes)).toBe(out!.ids[0]!);
    // And the payload bytes are the same as Python's.
    expect(Buffer.from(bytes).toString("hex")).toBe(Buffer.from(records[0]!).toString("hex"));
  }, 120_000);

  test("Sluice serializes, Python deserializes", async () => {
    const topic = `avro-sluice-to-py-${Date.now()}`;
    const serializer = new Serializer(world.client(), { schema });
    const framed = await Promise.all(values.map((v) => serializer.serialize(topic, v)));
    await produce(world, topic, framed);
    const out = (await py("consume", topic, ["--count", String(values.length)])) as { id: number; value: unknown }[];
    expect(out.map((o) => o.value)).toEqual(values);
    expect(out.map((o) => o.id)).toEqual(framed.map(schemaId));
  }, 120_000);
});
