// The npm client @kafkajs/confluent-schema-registry against our server: register, encode, decode.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

describe("@kafkajs/confluent-schema-registry", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  beforeAll(async () => {
    place = await registryPlace("kafka");
    sr = await startTestRegistry(place);
  }, 120_000);
  afterAll(async () => {
    await sr?.stop();
    removePlace(place);
  }, 60_000);

  test("registers, encodes in the wire format and decodes", async () => {
    const registry = new SchemaRegistry({ host: sr.url });
    const schema = {
      type: "record",
      name: "Payment",
      namespace: "bank",
      fields: [
        { name: "id", type: "string" },
        { name: "amount", type: "double" },
      ],
    };
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
      { subject: "payments-value" },
    );
    expect(await registry.getLatestSchemaId("payments-value")).toBe(id);
    expect(await registry.getRegistryId("payments-value", 1)).toBe(id);

    const bytes = await registry.encode(id, { id: "p-1", amount: 12.5 });
    expect(bytes[0]).toBe(0);
    expect(bytes.readInt32BE(1)).toBe(id);
    // A fresh client knows nothing: decode fetches the schema by id from our server.
    const reader = new SchemaRegistry({ host: sr.url });
    expect(await reader.decode(bytes)).toEqual({ id: "p-1", amount: 12.5 });

    // An evolution with a default is accepted; one without is refused with Confluent's 409.
    const v2 = { ...schema, fields: [...schema.fields, { name: "currency", type: "string", default: "EUR" }] };
    const second = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(v2) },
      { subject: "payments-value" },
    );
    expect(second.id).toBeGreaterThan(id);
    const v3 = { ...schema, fields: [...schema.fields, { name: "fee", type: "double" }] };
    const refused = await registry
      .register({ type: SchemaType.AVRO, schema: JSON.stringify(v3) }, { subject: "payments-value" })
      .then(
        () => undefined,
        (err: Error & { status?: number }) => err,
      );
    expect(refused?.status).toBe(409);
    // Old data is readable after the evolution, the new reader resolving the writer's schema.
    expect(await reader.decode(bytes)).toEqual({ id: "p-1", amount: 12.5 });
  });
});
