// CPU per CDC record on one thread, no I/O, for a row of the CDC benchmarks' `bench` table
// (bench/cdc-workload.ts): pgoutput's Insert message of it decoded, Debezium's envelope built, and its
// key and value written by JsonConverter with schemas, and as Avro (AvroConverter's work but the
// registry: AvroData's conversion and avsc's encoding), then read back (what a sink's converter does).
// Each is timed over `records` records, `rounds` times; the best round is printed (the others carry GC
// and warm-up). Compare builds by running it in each checkout.
// Usage: bun bench/cdc-records.ts [records=20000] [rounds=15]
import { Schema, type Struct } from "#src/connect/api/data/index.ts";
import { avscType } from "#src/connect/converters/avro.ts";
import { AvroData } from "#src/connect/converters/avro-data.ts";
import { JsonConverter } from "#src/connect/converters/json.ts";
import { changeRecords, tableSchemas } from "#src/connectors/postgres-cdc/envelope.ts";
import { decodePgOutput } from "#src/connectors/postgres-cdc/pgoutput.ts";

const records = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 15);

const schemas = tableSchemas("bench", "public", "bench", [
  { name: "id", schema: Schema.INT64_SCHEMA, isKey: true },
  { name: "n", schema: Schema.INT32_SCHEMA, isKey: false },
  { name: "payload", schema: Schema.STRING_SCHEMA, isKey: false },
  { name: "committed_at", schema: Schema.FLOAT64_SCHEMA, isKey: false },
]);
const payload = "d41d8cd98f00b204e9800998ecf8427ed41d8cd98f00b204e9800998ecf8427e";

function record(i: number) {
  const [first] = changeRecords(
    schemas,
    {
      op: "r",
      before: null,
      after: [BigInt(i), i % 1000, payload, 0],
      source: {
        version: "3.7.0.Final",
        name: "bench",
        db: "postgres",
        schema: "public",
        table: "bench",
        timestamp: 1_732_790_000_000_000n,
        snapshot: "true",
        lastCommitLsn: null,
        lsn: 123_456n,
        txId: 789n,
      },
      processedAt: 1_732_790_000_000_000n,
    },
    { sourcePartition: { server: "bench" }, sourceOffset: { lsn: 123_456 }, tombstonesOnDelete: false },
  );
  return first!;
}

/** The best of `rounds` rounds of `run`, in µs per record. */
function best(run: () => void): number {
  let fastest = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    run();
    fastest = Math.min(fastest, ((performance.now() - start) * 1000) / records);
  }
  return fastest;
}

/** pgoutput's Insert: 'I', relation id, 'N', column count, then each column as 't', length, text. */
function insertMessage(i: number): Uint8Array {
  const columns = [String(i), String(i % 1000), payload, "0"].map((text) => Buffer.from(text));
  const out = Buffer.alloc(8 + columns.reduce((n, c) => n + 5 + c.length, 0));
  let at = out.write("I", 0);
  at = out.writeUInt32BE(16_385, at);
  at += out.write("N", at);
  at = out.writeInt16BE(columns.length, at);
  for (const column of columns) {
    at += out.write("t", at);
    at = out.writeInt32BE(column.length, at);
    at += column.copy(out, at);
  }
  return out;
}

const messages = Array.from({ length: records }, (_, i) => insertMessage(i));
const decoded = best(() => {
  for (const message of messages) decodePgOutput(message);
});
const built = Array.from({ length: records }, (_, i) => record(i));
const keys = new JsonConverter();
keys.configure({}, true);
const values = new JsonConverter();
values.configure({}, false);
let bytes = 0;
const envelope = best(() => {
  for (let i = 0; i < records; i++) record(i);
});
const converted = best(() => {
  for (const r of built) {
    bytes += keys.fromConnectData(r.topic, r.keySchema, r.key)!.length;
    bytes += values.fromConnectData(r.topic, r.valueSchema, r.value)!.length;
  }
});
const avro = new AvroData();
const [keyAvro, valueAvro] = [built[0]!.keySchema, built[0]!.valueSchema].map((schema) => {
  const root = avro.fromConnectSchema(schema).root;
  return { schema, root, type: avscType(root) };
});
let avroBytes = 0;
const avroWritten = best(() => {
  for (const r of built)
    for (const [side, value] of [
      [keyAvro!, r.key],
      [valueAvro!, r.value],
    ] as const)
      avroBytes += side.type.toBuffer(avro.fromConnectData(side.schema, side.root, value)).length;
});
const avroEncoded = built.map((r) => ({
  key: keyAvro!.type.toBuffer(avro.fromConnectData(keyAvro!.schema, keyAvro!.root, r.key)),
  value: valueAvro!.type.toBuffer(avro.fromConnectData(valueAvro!.schema, valueAvro!.root, r.value)),
}));
const jsonEncoded = built.map((r) => ({
  key: keys.fromConnectData(r.topic, r.keySchema, r.key)!,
  value: values.fromConnectData(r.topic, r.valueSchema, r.value)!,
}));
const avroRead = best(() => {
  for (const { key, value } of avroEncoded) {
    avro.toConnectData(keyAvro!.root, keyAvro!.type.fromBuffer(key));
    avro.toConnectData(valueAvro!.root, valueAvro!.type.fromBuffer(value));
  }
});
const jsonRead = best(() => {
  for (const { key, value } of jsonEncoded) {
    keys.toConnectData("bench", key);
    values.toConnectData("bench", value);
  }
});
// The row alone, as the pipeline's sink reads it (the source unwraps it with ExtractNewRecordState).
const rowSchema = built[0]!.valueSchema!.field("after")!.schema;
const rowsEncoded = built.map((r) => values.fromConnectData(r.topic, rowSchema, (r.value as Struct).get("after"))!);
const rowRead = best(() => {
  for (const row of rowsEncoded) values.toConnectData("bench", row);
});
console.log(`pgoutput Insert decoded: ${decoded.toFixed(2)} µs per record`);
console.log(`Envelope: ${envelope.toFixed(2)} µs per record`);
console.log(
  `JsonConverter, key and value: ${converted.toFixed(2)} µs per record (${Math.round(bytes / records / rounds)} bytes)`,
);
console.log(
  `Avro, key and value: ${avroWritten.toFixed(2)} µs per record (${Math.round(avroBytes / records / rounds)} bytes)`,
);
console.log(
  `Read back, key and value: JsonConverter ${jsonRead.toFixed(2)} µs, Avro ${avroRead.toFixed(2)} µs per record`,
);
console.log(`Read back, the row's value unwrapped: JsonConverter ${rowRead.toFixed(2)} µs per record`);
