// Confluent's schema registry converters (Avro, Protobuf, JSON Schema) against a real registry on the
// embedded broker: fromConnectData registers the derived schema under the subject and writes the wire
// format that Sluice's own Deserializer reads; toConnectData reads it back to the Connect data (and,
// once the schema id is cached, without waiting); bad bytes and registry failures map to Connect's
// exceptions.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AvroConverter, avscType } from "#src/connect/converters/avro.ts";
import { indexesForMessage, messageForIndexes } from "#src/schema/protobuf/index.ts";
import type { Converter, ConverterConfig, SchemaAndValue } from "#src/connect/api/converter.ts";
import { BUILTIN_CONVERTERS } from "#src/connect/converters/index.ts";
import { JsonSchemaConverter } from "#src/connect/converters/jsonschema.ts";
import { ProtobufConverter } from "#src/connect/converters/protobuf.ts";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import {
  valuesEqual,
  DataException,
  ConnectDate,
  Decimal,
  Schema,
  SchemaBuilder,
  Struct,
} from "#src/connect/api/data/index.ts";
import { RetriableException } from "#src/connect/api/connector.ts";
import { Deserializer, SchemaRegistryClient } from "#src/serde/index.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { freePort } from "../../fixtures/wait.ts";

const address = SchemaBuilder.struct().name("shop.Address").field("city", Schema.STRING_SCHEMA).build();
const order = SchemaBuilder.struct()
  .name("shop.Order")
  .field("id", Schema.INT64_SCHEMA)
  .field("qty", Schema.INT16_SCHEMA)
  .field("price", Decimal.schema(2))
  .field("day", ConnectDate.SCHEMA)
  .field("note", Schema.OPTIONAL_STRING_SCHEMA)
  .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
  .field("counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
  .field("ship", address)
  .build();
const value = new Struct(order)
  .put("id", 42n)
  .put("qty", 3)
  .put("price", new BigDecimal(1999n, 2))
  .put("day", new Date(19_000 * 86_400_000))
  .put("tags", ["a", "b"])
  .put("counts", new Map([["x", 1]]))
  .put("ship", new Struct(address).put("city", "Oslo"));

let place: RegistryPlace;
let sr: TestRegistry;
let topicCounter = 0;
const topic = (what: string) => `conv-${what}-${Date.now()}-${topicCounter++}`;

beforeAll(async () => {
  place = await registryPlace("embedded");
  sr = await startTestRegistry(place);
}, 60_000);
afterAll(async () => {
  await sr?.stop();
  removePlace(place);
});

function configured<C extends Converter>(converter: C, config: ConverterConfig = {}, isKey = false): C {
  converter.configure({ "schema.registry.url": sr.url, ...config }, isKey);
  return converter;
}

/** The plain value Sluice's Deserializer makes of the bytes, and the subject's latest registration. */
async function readBack(t: string, bytes: Uint8Array, subject = `${t}-value`) {
  const id = new DataView(bytes.buffer, bytes.byteOffset).getInt32(1);
  const plain = await new Deserializer(new SchemaRegistryClient({ "schema.registry.url": sr.url })).deserialize(
    t,
    bytes,
  );
  const latest = (await client(sr.url).get(`/subjects/${encodeURIComponent(subject)}/versions/latest`)).body as {
    id: number;
    schema: string;
    schemaType?: string;
  };
  return { id, plain, latest };
}

/** toConnectData: the first read of an id waits for the registry; later ones do not. */
async function toConnect(converter: Converter, t: string, bytes: Uint8Array): Promise<SchemaAndValue> {
  const first = converter.toConnectData(t, bytes);
  expect(first).toBeInstanceOf(Promise);
  const result = await first;
  const again = converter.toConnectData(t, bytes);
  expect(again).not.toBeInstanceOf(Promise);
  expect(valuesEqual((again as SchemaAndValue).value, result.value)).toBe(true);
  return result;
}

describe("AvroConverter", () => {
  test("registers <topic>-value, writes what the Deserializer reads, reads it back", async () => {
    const t = topic("avro");
    const converter = configured(new AvroConverter());
    const bytes = (await converter.fromConnectData(t, order, value))!;
    const { id, plain, latest } = await readBack(t, bytes);
    expect(latest.id).toBe(id);
    expect(latest.schema).toBe(converter.avroData.fromConnectSchema(order).canonical);
    expect(JSON.parse(JSON.stringify(plain, (_, v: unknown) => (typeof v === "bigint" ? Number(v) : v)))).toEqual({
      id: 42,
      qty: 3,
      price: { type: "Buffer", data: [0x07, 0xcf] },
      day: 19_000,
      note: null,
      tags: ["a", "b"],
      counts: { x: 1 },
      ship: { city: "Oslo" },
    });
    const back = await toConnect(configured(new AvroConverter()), t, bytes);
    expect(back.schema!.equals(order)).toBe(true);
    expect(valuesEqual(back.value, value)).toBe(true);
    // Once the id is known, writing needs no registry either.
    expect(converter.fromConnectData(t, order, value)).toBeInstanceOf(Uint8Array);
  });

  test("keys go to <topic>-key; a tombstone is null both ways", async () => {
    const t = topic("avro-key");
    const converter = configured(new AvroConverter(), {}, true);
    const bytes = (await converter.fromConnectData(t, Schema.STRING_SCHEMA, "k1"))!;
    const { plain, latest } = await readBack(t, bytes, `${t}-key`);
    expect(plain).toBe("k1");
    expect(latest.schema).toBe('"string"');
    expect(converter.fromConnectData(t, null, null)).toBeNull();
    expect(converter.toConnectData(t, null)).toEqual({ schema: null, value: null });
  });

  test("use.latest.version writes with the subject's latest schema", async () => {
    const t = topic("avro-latest");
    const small = SchemaBuilder.struct().name("shop.Small").field("a", Schema.STRING_SCHEMA).build();
    const latestSchema = {
      type: "record",
      name: "Small",
      namespace: "shop",
      fields: [
        { name: "a", type: "string" },
        { name: "b", type: "int", default: 7 },
      ],
    };
    const registered = await client(sr.url).register(`${t}-value`, latestSchema);
    const converter = configured(new AvroConverter(), {
      "auto.register.schemas": false,
      "use.latest.version": true,
      "latest.compatibility.strict": false,
    });
    const bytes = (await converter.fromConnectData(t, small, new Struct(small).put("a", "x")))!;
    const { id, plain } = await readBack(t, bytes);
    expect(id).toBe((registered.body as { id: number }).id);
    expect({ ...(plain as object) }).toEqual({ a: "x", b: 7 });
  });

  test("without auto-registration an unknown schema is a DataException", async () => {
    const converter = configured(new AvroConverter(), { "auto.register.schemas": false });
    const failure = converter.fromConnectData(topic("avro-noreg"), Schema.STRING_SCHEMA, "x");
    await expect(failure).rejects.toBeInstanceOf(DataException);
    await expect(failure).rejects.toThrow(/Failed to serialize Avro data from topic .*not found/);
  });

  test("bad bytes are DataExceptions with the reason", async () => {
    const converter = configured(new AvroConverter());
    const t = topic("avro-bad");
    expect(() => converter.toConnectData(t, new Uint8Array([1, 0, 0, 0, 1, 2]))).toThrow(
      new DataException(
        `Failed to deserialize data for topic ${t} to Avro: Unknown magic byte 1: not in the Confluent wire format`,
      ),
    );
    expect(() => converter.toConnectData(t, new Uint8Array([0, 0]))).toThrow(/Truncated message/);
    await expect(converter.toConnectData(t, new Uint8Array([0, 0x7f, 0, 0, 0, 2]))).rejects.toThrow(
      /Failed to deserialize data for topic .* to Avro: Error retrieving Avro schema for id 2130706432/,
    );
    const good = (await configured(new AvroConverter()).fromConnectData(t, Schema.INT64_SCHEMA, 5n))!;
    // The first read of an id fails asynchronously; with the id cached the failure is immediate.
    await expect(converter.toConnectData(t, good.subarray(0, 5))).rejects.toThrow(/Error deserializing Avro message/);
    expect(() => converter.toConnectData(t, Buffer.concat([good, Buffer.from([1])]))).toThrow(
      /1 bytes after the record/,
    );
  });

  test("an unreachable registry is retriable", async () => {
    const converter = new AvroConverter();
    converter.configure({ "schema.registry.url": `http://127.0.0.1:${freePort()}` }, false);
    await expect(converter.fromConnectData(topic("avro-down"), Schema.STRING_SCHEMA, "x")).rejects.toBeInstanceOf(
      RetriableException,
    );
  });

  test("schema.registry.url is required", () => {
    expect(() => new AvroConverter().configure({}, false)).toThrow("schema.registry.url");
  });
});

describe("ProtobufConverter", () => {
  test("registers the derived .proto, writes what the Deserializer reads, reads it back", async () => {
    const t = topic("proto");
    const converter = configured(new ProtobufConverter());
    const bytes = (await converter.fromConnectData(t, order, value))!;
    const { id, plain, latest } = await readBack(t, bytes);
    expect(latest.id).toBe(id);
    expect(latest.schemaType).toBe("PROTOBUF");
    expect(latest.schema).toBe(converter.protobufData.fromConnectSchema(order).parsed.canonical);
    expect(bytes[5]).toBe(0); // message indexes: the first message
    expect(plain).toEqual({
      id: "42",
      qty: 3,
      price: { value: "B88=", precision: 4, scale: 2 },
      day: { year: 2022, month: 1, day: 8 },
      tags: ["a", "b"],
      counts: [{ key: "x", value: 1 }],
      ship: { city: "Oslo" },
    });
    const back = await toConnect(configured(new ProtobufConverter()), t, bytes);
    // Protobuf has its own view of the schema (every field optional, with its tag); the data is the same.
    const s = back.value as Struct;
    expect(back.schema!.name).toBe("Order");
    expect(s.get("id")).toBe(42n);
    expect(s.get("qty")).toBe(3);
    expect(s.get("price")).toEqual(new BigDecimal(1999n, 2));
    expect(s.get("day")).toEqual(new Date(19_000 * 86_400_000));
    expect(s.get("note")).toBe("");
    expect(s.get("tags")).toEqual(["a", "b"]);
    expect(s.get("counts")).toEqual(new Map([["x", 1]]));
    expect(s.getStruct("ship")!.get("city")).toBe("Oslo");
  });

  test("bad bytes are DataExceptions", async () => {
    const t = topic("proto-bad");
    const converter = configured(new ProtobufConverter());
    const good = (await converter.fromConnectData(t, address, new Struct(address).put("city", "x")))!;
    const broken = Buffer.concat([good.subarray(0, 6), Buffer.from([0x0a, 0x05, 0x41])]);
    await expect(configured(new ProtobufConverter()).toConnectData(t, broken)).rejects.toThrow(
      /Failed to deserialize data for topic .* to Protobuf: Error deserializing Protobuf message/,
    );
  });

  test("only structs can be written", () => {
    expect(() =>
      configured(new ProtobufConverter()).fromConnectData(topic("proto-prim"), Schema.STRING_SCHEMA, "x"),
    ).toThrow(DataException);
  });
});

describe("JsonSchemaConverter", () => {
  test("registers the derived JSON schema, writes what the Deserializer reads, reads it back", async () => {
    const t = topic("json");
    const converter = configured(new JsonSchemaConverter());
    const bytes = (await converter.fromConnectData(t, order, value))!;
    const { id, plain, latest } = await readBack(t, bytes);
    expect(latest.id).toBe(id);
    expect(latest.schemaType).toBe("JSON");
    expect(latest.schema).toBe(converter.jsonSchemaData.fromConnectSchema(order).canonical);
    expect(plain).toEqual({
      id: 42,
      qty: 3,
      price: "B88=",
      day: 19_000,
      note: null,
      tags: ["a", "b"],
      counts: { x: 1 },
      ship: { city: "Oslo" },
    });
    const back = await toConnect(configured(new JsonSchemaConverter()), t, bytes);
    expect(back.schema!.equals(order)).toBe(true);
    expect(valuesEqual(back.value, value)).toBe(true);
  });

  test("bad bytes are DataExceptions", async () => {
    const t = topic("json-bad");
    const converter = configured(new JsonSchemaConverter());
    const good = (await converter.fromConnectData(t, Schema.STRING_SCHEMA, "x"))!;
    const broken = Buffer.concat([good.subarray(0, 5), Buffer.from("{nope")]);
    await expect(configured(new JsonSchemaConverter()).toConnectData(t, broken)).rejects.toThrow(
      /Converting byte\[\] to Kafka Connect data failed due to serialization error of topic .*: Error deserializing JSON message/,
    );
  });
});

test("the worker finds the converters by Confluent's class names", async () => {
  for (const [name, kind] of [
    ["io.confluent.connect.avro.AvroConverter", AvroConverter],
    ["io.confluent.connect.protobuf.ProtobufConverter", ProtobufConverter],
    ["io.confluent.connect.json.JsonSchemaConverter", JsonSchemaConverter],
  ] as const) {
    const converter = BUILTIN_CONVERTERS[name]!();
    expect(converter).toBeInstanceOf(kind);
    converter.configure({ "schema.registry.url": sr.url }, false);
    const t = topic("builtin");
    const bytes = (await converter.fromConnectData(t, address, new Struct(address).put("city", "x")))!;
    expect(((await converter.toConnectData(t, bytes)).value as Struct).get("city")).toBe("x");
  }
});

describe("header and payload are written into one buffer, byte for byte what separate encoding gives", () => {
  const header = (id: number) => Buffer.from([0, id >>> 24, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff]);
  // A note longer than Avro's 64 KiB scratch buffer takes the copying path.
  const long = new Struct(order)
    .put("id", -7n)
    .put("qty", -1)
    .put("price", new BigDecimal(-5n, 2))
    .put("day", new Date(0))
    .put("note", "ø€𝄞".repeat(10_000))
    .put("tags", [])
    .put("counts", new Map())
    .put("ship", new Struct(address).put("city", ""));

  /** The first record (waiting for the registry) and the next (the id known) give the same bytes. */
  async function writtenTwice(converter: Converter, t: string, v: Struct): Promise<Buffer> {
    const first = Buffer.from((await converter.fromConnectData(t, order, v))!);
    const again = converter.fromConnectData(t, order, v);
    expect(again).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(again as Uint8Array).equals(first)).toBe(true);
    return first;
  }

  test("Avro", async () => {
    const converter = configured(new AvroConverter());
    const root = converter.avroData.fromConnectSchema(order).root;
    for (const v of [value, long]) {
      const t = topic("avro-framed");
      const bytes = await writtenTwice(converter, t, v);
      const payload = avscType(root).toBuffer(converter.avroData.fromConnectData(order, root, v));
      expect(bytes.equals(Buffer.concat([header(bytes.readInt32BE(1)), payload]))).toBe(true);
    }
  });

  test("Protobuf", async () => {
    const converter = configured(new ProtobufConverter());
    const { parsed, messageName } = converter.protobufData.fromConnectSchema(order);
    const type = messageForIndexes(parsed, indexesForMessage(parsed, messageName));
    for (const v of [value, long]) {
      const bytes = await writtenTwice(converter, topic("proto-framed"), v);
      const payload = type.encode(converter.protobufData.fromConnectData(order, type, v)!).finish();
      expect(bytes.equals(Buffer.concat([header(bytes.readInt32BE(1)), Buffer.from([0]), payload]))).toBe(true);
    }
  });

  test("JSON Schema", async () => {
    const converter = configured(new JsonSchemaConverter());
    for (const v of [value, long]) {
      const bytes = await writtenTwice(converter, topic("json-framed"), v);
      const text = converter.jsonSchemaData.fromConnectData(order, v)!;
      expect(bytes.equals(Buffer.concat([header(bytes.readInt32BE(1)), Buffer.from(text)]))).toBe(true);
    }
  });
});
