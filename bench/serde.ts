// Serde benchmark (not a test): serialize + deserialize throughput per format with a warm cache,
// against the bare library doing the same work in the same run (avsc; protobufjs; ajv +
// JSON.stringify + JSON.parse), each bare loop checking the value as a serializer must. Prints the
// overhead ratio bare/ours (target <= 1.15). The three loops of a format take turns over seven
// rounds; a ratio is the median of the rounds' ratios (bare and ours measured back to back), a rate
// the median of its rounds. One pass each in a fixed order swung by ±30% with JIT tier-up and the
// machine's other work.
// Usage: bun bench/serde.ts [iterations per round]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formats } from "#src/schema/index.ts";
import { jsonValidator } from "#src/schema/jsonschema/index.ts";
import type { AvroParsedSchema } from "#src/schema/avro/index.ts";
import { messageForIndexes } from "#src/schema/protobuf/index.ts";
import { Deserializer, SchemaRegistryClient, Serializer } from "#src/serde/index.ts";
import type { SchemaType } from "#src/schema/format.ts";
import { startTestRegistry } from "../test/fixtures/registry.ts";

const iterations = Number(process.argv[2] ?? 200_000);
const sr = await startTestRegistry({
  kind: "embedded",
  dataDir: mkdtempSync(join(tmpdir(), "sluice-bench-")),
  topic: "_schemas",
});
const client = new SchemaRegistryClient({ "schema.registry.url": sr.url });

const avro = {
  type: "record",
  name: "Event",
  fields: [
    { name: "id", type: "long" },
    { name: "user", type: "string" },
    { name: "score", type: "double" },
    { name: "tags", type: { type: "array", items: "string" } },
  ],
};
const proto = `syntax = "proto3";\nmessage Event {\n  int64 id = 1;\n  string user = 2;\n  double score = 3;\n  repeated string tags = 4;\n}\n`;
const json = {
  type: "object",
  properties: {
    id: { type: "integer" },
    user: { type: "string" },
    score: { type: "number" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id", "user"],
};
const value = { id: 12345, user: "ada", score: 0.75, tags: ["a", "b", "c"] };
const protoValue = { ...value, id: "12345" };

const rounds = 7;

function timeIt(fn: () => void): number {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return iterations / ((performance.now() - start) / 1000);
}

async function timeAsync(
  serializer: Serializer,
  deserializer: Deserializer,
  topic: string,
  v: unknown,
): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const bytes = await serializer.serialize(topic, v);
    await deserializer.deserialize(topic, bytes);
  }
  return iterations / ((performance.now() - start) / 1000);
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[xs.length >> 1]!;

async function measure(type: SchemaType, schema: string | object, v: unknown, bare: () => void) {
  const serializer = new Serializer(client, { schemaType: type, schema });
  const deserializer = new Deserializer(client);
  const topic = `bench-${type.toLowerCase()}`;
  await deserializer.deserialize(topic, await serializer.serialize(topic, v)); // warm the caches
  const sync = () => deserializer.deserializeSync(serializer.serializeSync(topic, v));
  for (let i = 0; i < iterations / 10; i++) {
    bare();
    sync();
  } // warm-up (JIT)
  await timeAsync(serializer, deserializer, topic, v);
  const bareRates: number[] = [],
    syncRates: number[] = [],
    asyncRates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    bareRates.push(timeIt(bare));
    syncRates.push(timeIt(sync));
    asyncRates.push(await timeAsync(serializer, deserializer, topic, v));
  }
  return {
    type,
    bareRate: median(bareRates),
    syncRate: median(syncRates),
    asyncRate: median(asyncRates),
    syncRatio: median(bareRates.map((b, r) => b / syncRates[r]!)),
    asyncRatio: median(bareRates.map((b, r) => b / asyncRates[r]!)),
  };
}

const parse = (type: SchemaType, text: string) => formats.get(type)!.parse(text, []);
const avroType = (parse("AVRO", JSON.stringify(avro)) as AvroParsedSchema).avscType;
const protoType = messageForIndexes(parse("PROTOBUF", proto), [0]);
const validate = jsonValidator(parse("JSON", JSON.stringify(json)));

const results = [
  await measure("AVRO", avro, value, () => {
    if (!avroType.isValid(value)) throw new Error("invalid");
    avroType.fromBuffer(avroType.toBuffer(value));
  }),
  await measure("PROTOBUF", proto, protoValue, () => {
    // Converted first, then checked: verify() of the plain value fails at once on the string int64
    // that proto3 JSON allows, so it checks nothing. Read back as the deserializer presents values.
    const message = protoType.fromObject(protoValue);
    if (protoType.verify(message)) throw new Error("invalid");
    protoType.toObject(protoType.decode(protoType.encode(message).finish()), {
      longs: String,
      enums: String,
      bytes: String,
    });
  }),
  await measure("JSON", json, value, () => {
    // Bytes are what a serializer produces: the UTF-8 encoding is part of the bare work.
    if (validate(value).length > 0) throw new Error("invalid");
    JSON.parse(Buffer.from(JSON.stringify(value)).toString());
  }),
];
await sr.stop();

console.log(
  `serialize + deserialize, ${iterations} values per round, median of ${rounds} rounds, warm caches (overhead ratio = bare / sluice, target <= 1.15):`,
);
for (const r of results) {
  const f = (x: number) => String(Math.round(x)).padStart(8);
  console.log(
    `  ${r.type.padEnd(8)} bare ${f(r.bareRate)} /s | serializeSync+deserializeSync ${f(r.syncRate)} /s, ratio ${r.syncRatio.toFixed(2)}` +
      ` | await serialize+deserialize ${f(r.asyncRate)} /s, ratio ${r.asyncRatio.toFixed(2)}`,
  );
}
process.exit(0);
