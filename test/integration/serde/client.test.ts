// The serde client against a real registry (embedded broker): settings, fail-over, caching.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Deserializer, SchemaRegistryClient, SerializationException, Serializer } from "#src/serde/index.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { freePort } from "../../fixtures/wait.ts";

const v1 = { type: "record", name: "Event", namespace: "app", fields: [{ name: "a", type: "string" }] };
const v2 = { ...v1, fields: [...v1.fields, { name: "b", type: "int", default: 0 }] };

describe("serde client settings", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  let requests = 0;
  let proxy: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place);
    // Counts requests on their way to the registry.
    proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: freePort(),
      fetch: (req) => {
        requests++;
        const url = new URL(req.url);
        return fetch(sr.url + url.pathname + url.search, { method: req.method, headers: req.headers, body: req.body });
      },
    });
  }, 60_000);
  afterAll(async () => {
    proxy?.stop(true);
    await sr?.stop();
    removePlace(place);
  });

  test("fail-over: a dead first URL is skipped", async () => {
    const registry = new SchemaRegistryClient({ "schema.registry.url": `http://127.0.0.1:${freePort()},${sr.url}` });
    const bytes = await new Serializer(registry, { schema: v1 }).serialize("failover", { a: "x" });
    expect(bytes[0]).toBe(0);
  });

  test("caches ids and schemas; concurrent identical look-ups make one request", async () => {
    const registry = new SchemaRegistryClient({ "schema.registry.url": `http://127.0.0.1:${proxy.port}` });
    const serializer = new Serializer(registry, { schema: v1 });
    requests = 0;
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) => serializer.serialize("cached", { a: String(i) })),
    );
    expect(requests).toBe(1);
    const deserializer = new Deserializer(registry);
    const fresh = new Deserializer(
      new SchemaRegistryClient({ "schema.registry.url": `http://127.0.0.1:${proxy.port}` }),
    );
    requests = 0;
    await Promise.all(all.map((b) => fresh.deserialize("cached", b)));
    expect(requests).toBe(1);
    requests = 0;
    await deserializer.deserialize("cached", all[0]!); // the id was learned when registering
    expect(requests).toBe(0);
  });

  test("without auto-registration: lookup, or use.latest.version with the strict check", async () => {
    const url = sr.url;
    const lookupOnly = new Serializer(
      new SchemaRegistryClient({ "schema.registry.url": url, "auto.register.schemas": false }),
      { schema: v1 },
    );
    await expect(lookupOnly.serialize("unregistered", { a: "x" })).rejects.toThrow(SerializationException);
    await client(url).register("latest-value", v1);
    await client(url).register("latest-value", v2);
    const latest = new Serializer(
      new SchemaRegistryClient({
        "schema.registry.url": url,
        "auto.register.schemas": false,
        "use.latest.version": true,
      }),
      { schema: v1 },
    );
    const bytes = await latest.serialize("latest", { a: "x", b: 3 });
    const v2Id = (await client(url).get("/subjects/latest-value/versions/2")).body.id;
    expect(new DataView(bytes.buffer).getInt32(1)).toBe(v2Id);
    // A schema the latest version cannot read is refused under latest.compatibility.strict.
    const incompatible = new Serializer(
      new SchemaRegistryClient({
        "schema.registry.url": url,
        "auto.register.schemas": false,
        "use.latest.version": true,
      }),
      { schema: { ...v1, fields: [{ name: "a", type: "int" }] } },
    );
    await expect(incompatible.serialize("latest", { a: 1 })).rejects.toThrow(/cannot read/);
  });

  test("record name strategies name the subject after the record", async () => {
    const registry = new SchemaRegistryClient({
      "schema.registry.url": sr.url,
      "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
    });
    await new Serializer(registry, { schema: v1 }).serialize("events", { a: "x" });
    expect((await client(sr.url).get("/subjects")).body).toContain("events-app.Event");
  });

  test("a value that does not match fails before anything is registered", async () => {
    const registry = new SchemaRegistryClient({ "schema.registry.url": sr.url });
    const before = (await client(sr.url).get("/subjects")).body;
    await expect(new Serializer(registry, { schema: v1 }).serialize("nothing", { a: 5 })).rejects.toThrow(
      SerializationException,
    );
    expect((await client(sr.url).get("/subjects")).body).toEqual(before);
  });

  test("framed bytes round-trip per format: Protobuf message indexes, Avro reader schemas, bytes that are not a Buffer", async () => {
    const registry = new SchemaRegistryClient({ "schema.registry.url": sr.url });
    const proto = `syntax = "proto3";\npackage shop;\nmessage Other { string x = 1; }\nmessage Order {\n  message Line { int64 qty = 1; }\n  string id = 1;\n  repeated Line lines = 2;\n}\n`;
    const line = new Serializer(registry, { schemaType: "PROTOBUF", schema: proto, messageName: "shop.Order.Line" });
    const bytes = await line.serialize("proto-lines", { qty: "7" });
    // Magic byte, id, then the index path [1, 0] as zig-zag varints (count 2, 1, 0), then the payload.
    expect([...bytes.subarray(5, 8)]).toEqual([4, 2, 0]);
    expect(await new Deserializer(registry).deserialize("proto-lines", Uint8Array.from(bytes))).toEqual({ qty: "7" });
    const order = new Serializer(registry, { schemaType: "PROTOBUF", schema: proto, messageName: "shop.Order" });
    const first = await order.serialize("proto-orders", { id: "o1", lines: [{ qty: 2 }] });
    expect(await new Deserializer(registry).deserialize("proto-orders", first)).toEqual({
      id: "o1",
      lines: [{ qty: "2" }],
    });
    expect(() => order.serializeSync("proto-orders", { id: "o1", note: "x" })).toThrow(
      "Error serializing Protobuf message shop.Order: unknown field note",
    );

    const avroBytes = await new Serializer(registry, { schema: v2 }).serialize("avro-read", { a: "x", b: 3 });
    const reader = new Deserializer(registry, { readerSchema: v1 });
    expect(await reader.deserialize("avro-read", Uint8Array.from(avroBytes))).toEqual({ a: "x" });
    expect(reader.deserializeSync(avroBytes)).toEqual({ a: "x" });

    const json = new Serializer(registry, {
      schemaType: "JSON",
      schema: { type: "object", properties: { n: { type: "integer" } } },
    });
    const jsonBytes = await json.serialize("json-read", { n: 1 });
    expect(new TextDecoder().decode(jsonBytes.subarray(5))).toBe('{"n":1}');
    expect(await new Deserializer(registry).deserialize("json-read", Uint8Array.from(jsonBytes))).toEqual({ n: 1 });
  });

  test("schema ids in headers: the GUID in __value_schema_id (__key_schema_id), the bare payload, read back by GUID or id", async () => {
    const registry = new SchemaRegistryClient({ "schema.registry.url": sr.url });
    const headers: { key: string; value: Uint8Array | null }[] = [];
    const serializer = new Serializer(registry, { schema: v1, schemaIdInHeader: true });
    const payload = await serializer.serialize("hdr-events", { a: "x" }, headers);
    const prefixed = await new Serializer(registry, { schema: v1 }).serialize("hdr-events", { a: "x" });
    // The value is what follows the prefix; the header is magic byte 1 and the registry's GUID.
    expect(Buffer.from(payload).toString("hex")).toBe(Buffer.from(prefixed.subarray(5)).toString("hex"));
    const id = new DataView(prefixed.buffer, prefixed.byteOffset).getInt32(1, false);
    const { body } = await client(sr.url).get(`/schemas/ids/${id}`);
    expect(headers.map((h) => h.key)).toEqual(["__value_schema_id"]);
    expect(Buffer.from(headers[0]!.value!).toString("hex")).toBe(`01${body.guid.replace(/-/g, "")}`);
    // Synchronously once known, and without headers it is refused as Confluent's serializer refuses it.
    expect(serializer.serializeSync("hdr-events", { a: "y" }, headers)).toBeInstanceOf(Uint8Array);
    expect(() => serializer.serializeSync("hdr-events", { a: "y" })).toThrow("Missing headers");
    expect(headers).toHaveLength(2);

    // The deserializer takes the header when there is one (a fresh client: fetched by GUID), else the prefix.
    const fresh = new Deserializer(new SchemaRegistryClient({ "schema.registry.url": sr.url }));
    expect(await fresh.deserialize("hdr-events", payload, headers.slice(0, 1))).toEqual({ a: "x" });
    expect(await fresh.deserialize("hdr-events", prefixed, [])).toEqual({ a: "x" });
    // An id header (magic byte 0) names the schema by its id.
    const idHeader = [{ key: "__value_schema_id", value: prefixed.subarray(0, 5) }];
    expect(await fresh.deserialize("hdr-events", payload, idHeader)).toEqual({ a: "x" });
    // Keys use their own header; a value deserializer ignores it.
    const keyHeaders: { key: string; value: Uint8Array | null }[] = [];
    const key = await new Serializer(registry, { schema: '"string"', isKey: true, schemaIdInHeader: true }).serialize(
      "hdr-events",
      "k1",
      keyHeaders,
    );
    expect(keyHeaders.map((h) => h.key)).toEqual(["__key_schema_id"]);
    expect(await new Deserializer(registry, { isKey: true }).deserialize("hdr-events", key, keyHeaders)).toBe("k1");
    await expect(new Deserializer(registry).deserialize("hdr-events", key, keyHeaders)).rejects.toThrow(
      "Truncated message",
    );

    // Protobuf: the message indexes go with the GUID in the header.
    const proto = `syntax = "proto3";\npackage hdr;\nmessage Other { string x = 1; }\nmessage Order { string id = 1; }\n`;
    const protoHeaders: { key: string; value: Uint8Array | null }[] = [];
    const order = new Serializer(registry, {
      schemaType: "PROTOBUF",
      schema: proto,
      messageName: "hdr.Order",
      schemaIdInHeader: true,
    });
    const protoPayload = await order.serialize("hdr-orders", { id: "o1" }, protoHeaders);
    expect([...protoHeaders[0]!.value!.subarray(17)]).toEqual([2, 2]);
    expect(await fresh.deserialize("hdr-orders", protoPayload, protoHeaders)).toEqual({ id: "o1" });
  });
});
