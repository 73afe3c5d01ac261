// The one schema id resolver behind the serde Serializer and the Connect registry converters: which
// registry call each serializer setting makes, subject naming, and what it remembers.
import { describe, expect, test } from "bun:test";
import { formats } from "#src/schema/index.ts";
import { parseSerdeConfig, type SerdeConfig } from "#src/serde/config.ts";
import { RestClientException, SerializationException } from "#src/serde/errors.ts";
import type { SchemaRegistryClient, SchemaText, SubjectVersion } from "#src/serde/registry-client.ts";
import { SchemaIdResolver } from "#src/serde/schema-id-resolver.ts";

const avro = formats.get("AVRO")!;
const v1 = avro.parse(
  JSON.stringify({ type: "record", name: "Event", namespace: "app", fields: [{ name: "a", type: "string" }] }),
  [],
);
const v2Text = JSON.stringify({
  type: "record",
  name: "Event",
  namespace: "app",
  fields: [
    { name: "a", type: "string" },
    { name: "b", type: "int", default: 0 },
  ],
});

/** A registry client that answers from memory and records each call. */
function fakeClient(config: SerdeConfig, latest?: Partial<SubjectVersion>) {
  const calls: string[] = [];
  const client = {
    settings: parseSerdeConfig({ "schema.registry.url": "http://registry.invalid", ...config }),
    register: async (subject: string, text: SchemaText, normalize: boolean) => {
      calls.push(`register ${subject} ${normalize} ${text.references.length}`);
      return 7;
    },
    lookup: async (subject: string) => {
      calls.push(`lookup ${subject}`);
      if (subject === "missing-value") throw new RestClientException("Subject not found", 404, 40401);
      return 8;
    },
    version: async (subject: string, version: number | "latest"): Promise<SubjectVersion> => {
      calls.push(`version ${subject} ${version}`);
      return { subject, version: 3, id: 9, schema: v2Text, schemaType: "AVRO", references: [], ...latest };
    },
    resolveReferences: async () => [],
  };
  return { client: client as unknown as SchemaRegistryClient, calls };
}

describe("schema id resolver", () => {
  test("auto.register.schemas (the default) registers, once per schema and subject", async () => {
    const { client, calls } = fakeClient({ "normalize.schemas": true });
    const resolver = new SchemaIdResolver(client, false);
    const subject = resolver.subject("orders", () => undefined);
    expect(subject).toBe("orders-value");
    expect(resolver.known(subject, v1)).toBeUndefined();
    const refs = [{ name: "r", subject: "s", version: 1 }];
    expect(await resolver.resolve(subject, v1, refs)).toEqual({ id: 7, writer: v1 });
    expect(await resolver.resolve(subject, v1, refs)).toEqual({ id: 7, writer: v1 });
    expect(resolver.known(subject, v1)).toEqual({ id: 7, writer: v1 });
    expect(calls).toEqual(["register orders-value true 1"]);
  });

  test("use.schema.id wins over every other setting and asks nothing", async () => {
    const { client, calls } = fakeClient({ "use.schema.id": 42, "use.latest.version": true });
    expect(await new SchemaIdResolver(client, true).resolve("orders-key", v1)).toEqual({ id: 42, writer: v1 });
    expect(calls).toEqual([]);
  });

  test("without auto-registration: a look-up, failures worded as Confluent's serializers", async () => {
    const { client, calls } = fakeClient({ "auto.register.schemas": false });
    const resolver = new SchemaIdResolver(client, false);
    expect((await resolver.resolve("orders-value", v1)).id).toBe(8);
    const failed = resolver.resolve("missing-value", v1);
    await expect(failed).rejects.toBeInstanceOf(SerializationException);
    await expect(failed).rejects.toThrow(
      "Error retrieving schema id for subject missing-value: Subject not found; error code: 40401",
    );
    expect(calls).toEqual(["lookup orders-value", "lookup missing-value"]);
  });

  test("use.latest.version writes with the subject's latest schema when it reads the given one", async () => {
    const { client, calls } = fakeClient({ "auto.register.schemas": false, "use.latest.version": true });
    const resolved = await new SchemaIdResolver(client, false).resolve("orders-value", v1);
    expect(resolved.id).toBe(9);
    expect(resolved.writer.canonical).toBe(avro.parse(v2Text, []).canonical);
    expect(calls).toEqual(["version orders-value latest"]);
  });

  test("use.latest.version refuses a latest schema that cannot read the given one (strict), or of another type", async () => {
    const narrower = JSON.stringify({
      type: "record",
      name: "Event",
      namespace: "app",
      fields: [
        { name: "a", type: "string" },
        { name: "c", type: "int" },
      ],
    });
    const strict = fakeClient({ "auto.register.schemas": false, "use.latest.version": true }, { schema: narrower });
    await expect(new SchemaIdResolver(strict.client, false).resolve("orders-value", v1)).rejects.toThrow(
      "Latest schema of orders-value (version 3) cannot read the given schema",
    );
    const lax = fakeClient(
      { "auto.register.schemas": false, "use.latest.version": true, "latest.compatibility.strict": false },
      { schema: narrower },
    );
    expect((await new SchemaIdResolver(lax.client, false).resolve("orders-value", v1)).id).toBe(9);
    const json = fakeClient(
      { "auto.register.schemas": false, "use.latest.version": true },
      { schema: "{}", schemaType: "JSON" },
    );
    await expect(new SchemaIdResolver(json.client, false).resolve("orders-value", v1)).rejects.toThrow(
      "Latest schema of orders-value is JSON, not AVRO",
    );
  });

  test("the record name strategies name the subject after the record", () => {
    const { client } = fakeClient({
      "key.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
    });
    const resolver = new SchemaIdResolver(client, true);
    expect(resolver.subject("orders", () => "app.Event")).toBe("orders-app.Event");
    expect(() => resolver.subject("orders", () => undefined)).toThrow(SerializationException);
  });
});
