// Schema ids in record headers (Confluent 8) with Python's confluent-kafka, on the real Kafka fixture:
// its header_schema_id_serializer → Sluice's deserializer, Sluice's schemaIdInHeader serializer → its
// dual_schema_id_deserializer; the header (magic byte 1 and the GUID the registry answers) is the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Deserializer, type SerdeHeader, Serializer } from "#src/serde/index.ts";
import { client } from "../fixtures/registry.ts";
import { compileProtoForPython, pythonSerde } from "../fixtures/python.ts";
import { waitFor } from "../fixtures/wait.ts";
import { interopWorld, type InteropWorld } from "./interop-helpers.ts";

const schema = {
  type: "record",
  name: "Shipment",
  namespace: "shop",
  fields: [
    { name: "id", type: "long" },
    { name: "to", type: "string" },
  ],
};
const values = [
  { id: 1, to: "Lyon" },
  { id: 2, to: "Oslo" },
];
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
// Two messages: the second's message indexes ([1]: count 1, index 1, as zigzag varints 02 02) go in the header.
const proto = `syntax = "proto3";
package parcel;

message Label {
  string text = 1;
}
message Parcel {
  int64 id = 1;
  string to = 2;
}
`;
const parcels = [
  { id: "1", to: "Lyon" },
  { id: "2", to: "Oslo" },
];

describe("schema ids in headers with Python confluent-kafka", () => {
  let world: InteropWorld;
  let dir: string;
  beforeAll(async () => {
    world = await interopWorld();
    dir = mkdtempSync(join(tmpdir(), "sluice-interop-headers-"));
    writeFileSync(join(dir, "shipment.avsc"), JSON.stringify(schema));
    writeFileSync(join(dir, "parcel.proto"), proto);
    compileProtoForPython(dir, ["parcel.proto"]);
  }, 180_000);
  afterAll(() => world?.stop(), 60_000);

  const py = (mode: string, topic: string, extra: string[] = [], input = "", format = "avro") =>
    pythonSerde(
      [
        mode,
        "--format",
        format,
        "--bootstrap",
        world.bootstrap,
        "--registry",
        world.sr.url,
        "--topic",
        topic,
        "--header-ids",
        ...extra,
      ],
      input,
    );
  /** The header value Confluent 8 writes for the subject's latest schema: magic byte 1 and its GUID. */
  const expectedHeader = async (subject: string) => {
    const { body } = await client(world.sr.url).get(`/subjects/${subject}/versions/latest`);
    return `01${body.guid.replace(/-/g, "")}`;
  };
  const fetchAll = (topic: string, count: number) =>
    waitFor(`${count} records in ${topic}`, async () => {
      const records = await world.broker.fetch(topic, 0, 0, { maxWaitMs: 500 });
      return records.length >= count ? records : undefined;
    });

  test("Python writes the GUID in __value_schema_id; Sluice reads the header and the bare payload", async () => {
    const topic = `hdr-py-to-sluice-${Date.now()}`;
    const [out] = (await py(
      "produce",
      topic,
      ["--schema", join(dir, "shipment.avsc")],
      values.map((v) => JSON.stringify(v)).join("\n"),
    )) as { headers: [string, string][][] }[];
    const header = await expectedHeader(`${topic}-value`);
    expect(out!.headers).toEqual(values.map(() => [["__value_schema_id", header]]));
    const records = await fetchAll(topic, values.length);
    const deserializer = new Deserializer(world.client());
    const decoded = await Promise.all(records.map((r) => deserializer.deserialize(topic, r.value, r.headers)));
    expect(decoded.map((d) => ({ ...(d as object) }))).toEqual(values);
    // Sluice's header serializer writes the same header and the same payload bytes.
    const headers: SerdeHeader[] = [];
    const payload = await new Serializer(world.client(), { schema, schemaIdInHeader: true }).serialize(
      topic,
      values[0],
      headers,
    );
    expect(headers.map((h) => [h.key, hex(h.value!)])).toEqual([["__value_schema_id", header]]);
    expect(hex(payload)).toBe(hex(records[0]!.value!));
  }, 120_000);

  test("Sluice writes the GUID in __value_schema_id; Python's dual deserializer reads it", async () => {
    const topic = `hdr-sluice-to-py-${Date.now()}`;
    const serializer = new Serializer(world.client(), { schema, schemaIdInHeader: true });
    const records = [];
    for (const v of values) {
      const headers: SerdeHeader[] = [];
      const value = await serializer.serialize(topic, v, headers);
      records.push({ key: null, value, headers, partition: 0 });
    }
    await world.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    await world.broker.produce(topic, records);
    const out = (await py("consume", topic, ["--count", String(values.length)])) as {
      value: unknown;
      headers: [string, string][];
    }[];
    expect(out.map((o) => o.value)).toEqual(values);
    const header = await expectedHeader(`${topic}-value`);
    expect(out.map((o) => o.headers)).toEqual(values.map(() => [["__value_schema_id", header]]));
  }, 120_000);

  test("Protobuf: the message indexes travel in the header, both ways", async () => {
    const protoArgs = ["--proto-dir", dir, "--proto-module", "parcel_pb2", "--message", "Parcel"];
    const topic = `hdr-proto-${Date.now()}`;
    const [out] = (await py(
      "produce",
      topic,
      protoArgs,
      parcels.map((v) => JSON.stringify(v)).join("\n"),
      "protobuf",
    )) as { headers: [string, string][][] }[];
    const header = `${await expectedHeader(`${topic}-value`)}0202`;
    expect(out!.headers).toEqual(parcels.map(() => [["__value_schema_id", header]]));
    const records = await fetchAll(topic, parcels.length);
    const deserializer = new Deserializer(world.client());
    expect(await Promise.all(records.map((r) => deserializer.deserialize(topic, r.value, r.headers)))).toEqual(parcels);

    const back = `hdr-proto-back-${Date.now()}`;
    const serializer = new Serializer(world.client(), {
      schemaType: "PROTOBUF",
      schema: proto,
      messageName: "parcel.Parcel",
      schemaIdInHeader: true,
    });
    const produced = [];
    for (const v of parcels) {
      const headers: SerdeHeader[] = [];
      produced.push({ key: null, value: await serializer.serialize(back, v, headers), headers, partition: 0 });
    }
    expect(hex(produced[0]!.headers[0]!.value!)).toBe(`${await expectedHeader(`${back}-value`)}0202`);
    await world.broker.createTopic({ name: back, partitions: 1, replicationFactor: 1 });
    await world.broker.produce(back, produced);
    const read = (await py("consume", back, [...protoArgs, "--count", String(parcels.length)], "", "protobuf")) as {
      value: unknown;
    }[];
    expect(read.map((o) => o.value)).toEqual(parcels);
  }, 120_000);
});
