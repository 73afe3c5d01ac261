// The JDBC sink's bulk paths against real servers. PostgreSQL: the same records written through COPY (a
// stage and one INSERT … ON CONFLICT / DELETE … USING per run, or COPY straight in) and through
// statements leave equal tables; a COPY the server refuses fails the write with the server's own message,
// rolls it back and leaves the connection usable. MariaDB: a put larger than max_allowed_packet is cut
// into statements that fit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  BigDecimal,
  ConnectDate,
  Decimal,
  type Schema,
  SchemaBuilder,
  Struct,
  Time,
  Timestamp,
} from "#src/connect/api/data/index.ts";
import { NO_CONNECT_HEADERS, type SinkRecord } from "#src/connect/api/records.ts";
import { type Database, openDatabase } from "#src/connectors/jdbc-sink/database.ts";
import { parseJdbcSinkConfig } from "#src/connectors/jdbc-sink/settings.ts";
import { JdbcWriter, type WriterOptions } from "#src/connectors/jdbc-sink/writer.ts";
import { startMariaDb, type MariaDbServer } from "../../fixtures/mariadb.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";

const keySchema = SchemaBuilder.struct().field("id", SchemaBuilder.int32().build()).build();
const optional = (b: { optional(): { build(): Schema } }) => b.optional().build();
const valueSchema = SchemaBuilder.struct()
  .field("id", SchemaBuilder.int32().build())
  .field("tiny", optional(SchemaBuilder.int8()))
  .field("small", optional(SchemaBuilder.int16()))
  .field("big", optional(SchemaBuilder.int64()))
  .field("single", optional(SchemaBuilder.float32()))
  .field("double", optional(SchemaBuilder.float64()))
  .field("flag", optional(SchemaBuilder.bool()))
  .field("text", optional(SchemaBuilder.string()))
  .field("blob", optional(SchemaBuilder.bytes()))
  .field("amount", optional(Decimal.builder(3)))
  .field("day", optional(ConnectDate.builder()))
  .field("clock", optional(Time.builder()))
  .field("at", optional(Timestamp.builder()))
  .build();

/** Text with everything COPY's format must escape (PostgreSQL text holds no NUL, on either path). */
const text = fc
  .array(fc.oneof(fc.constantFrom("\t", "\n", "\r", "\\", "\\N", "\\.", "é", "😀", "'", '"', ","), fc.string()), {
    maxLength: 6,
  })
  .map((parts) => parts.join("").replaceAll("\0", ""));
const day = 86_400_000;
const fieldValues: fc.Arbitrary<unknown>[] = [
  fc.integer({ min: -128, max: 127 }),
  fc.integer({ min: -32768, max: 32767 }),
  fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.maxSafeInteger()),
  fc.oneof(
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 0.1),
    fc.float({ noNaN: true, min: Math.fround(-1e30), max: Math.fround(1e30) }),
  ),
  fc.oneof(fc.constantFrom(Number.NaN, Number.NEGATIVE_INFINITY, -0, 1e300), fc.double({ noNaN: true })),
  fc.boolean(),
  text,
  fc.uint8Array({ maxLength: 12 }),
  fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }).map((u) => new BigDecimal(u, 3)),
  fc.integer({ min: -25_000, max: 80_000 }).map((days) => new Date(days * day)),
  fc.integer({ min: 0, max: day - 1 }).map((ms) => new Date(ms)),
  fc.integer({ min: -2e12, max: 7e12 }).map((ms) => new Date(ms)),
].map((arbitrary: fc.Arbitrary<unknown>) => fc.option(arbitrary, { nil: null, freq: 5 }));

/** Writes and tombstones of a few dozen keys, so that keys repeat within and across runs. */
const changes = fc.array(
  fc.record({
    id: fc.integer({ min: 0, max: 40 }),
    tombstone: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
    fields: fc.tuple(...fieldValues),
  }),
  { minLength: 400, maxLength: 400 },
);

function records(topic: string, sample: Change[]): SinkRecord[] {
  return sample.map((change, offset) => {
    let value: Struct | null = null;
    if (!change.tombstone) {
      value = new Struct(valueSchema).put("id", change.id);
      valueSchema.fields.slice(1).forEach((f, i) => value!.put(f, change.fields[i]));
    }
    return sinkRecord(topic, offset, change.id, value === null ? null : valueSchema, value);
  });
}

/** A record of `topic` at `offset` (partition = offset mod 2, as from a two-partition topic). */
function sinkRecord(
  topic: string,
  offset: number,
  id: number,
  valueSchema: Schema | null,
  value: Struct | null,
): SinkRecord {
  return {
    topic,
    kafkaPartition: offset % 2,
    kafkaOffset: offset,
    originalTopic: topic,
    originalKafkaPartition: offset % 2,
    originalKafkaOffset: offset,
    keySchema,
    key: new Struct(keySchema).put("id", id),
    valueSchema,
    value,
    timestamp: 0,
    timestampType: "CreateTime",
    headers: NO_CONNECT_HEADERS,
  };
}

type Change = { id: number; tombstone: boolean; fields: unknown[] };

function sampleChanges(seed: number): Change[] {
  return fc.sample(changes, { seed, numRuns: 1 })[0]!;
}

describe("JDBC sink: PostgreSQL COPY", () => {
  let pg: PostgresServer;
  const opened: Database[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
    await pg?.stop();
  });

  function writer(settings: Record<string, string>, options: WriterOptions): JdbcWriter {
    const config = parseJdbcSinkConfig({
      "connection.url": `jdbc:postgresql://127.0.0.1:${pg.port}/postgres`,
      "connection.user": pg.user,
      "pk.mode": "record_key",
      "auto.create": "true",
      ...settings,
    });
    const db = openDatabase(config.target, { user: config.user, password: config.password }, config.timeZone);
    opened.push(db);
    return new JdbcWriter(config, db, options);
  }

  async function writeInPuts(w: JdbcWriter, all: SinkRecord[], putSize: number): Promise<void> {
    for (let i = 0; i < all.length; i += putSize) await w.write(all.slice(i, i + putSize));
  }

  const table = (name: string) => pg.psql(`SELECT * FROM "${name}" ORDER BY id`);

  test.each([1, 2, 3])("upserts and deletes through COPY leave the table statements leave (seed %d)", async (seed) => {
    const sample = sampleChanges(seed);
    const settings = { "insert.mode": "upsert", "delete.enabled": "true", "batch.size": "7" };
    const [bulk, statements] = [`copy_${seed}`, `statements_${seed}`];
    await writeInPuts(writer(settings, { copy: "always" }), records(bulk, sample), 150);
    await writeInPuts(writer(settings, { copy: "never" }), records(statements, sample), 150);
    const rows = table(statements);
    expect(rows.split("\n").length).toBeGreaterThan(10);
    expect(table(bulk)).toBe(rows);
  });

  test("a record without a struct value, and a tombstone without delete.enabled, are refused naming where they are", async () => {
    const w = writer({}, {});
    const text = {
      ...sinkRecord("refused", 7, 1, null, null),
      valueSchema: SchemaBuilder.string().build(),
      value: "x",
    };
    await expect(w.write([text])).rejects.toThrow(
      "Sink connector requires records with a non-null Struct value and non-null Struct schema, but found record at (topic='refused',partition=1,offset=7,timestamp=0) with a string value and STRING value schema.",
    );
    await expect(w.write([sinkRecord("refused", 8, 1, null, null)])).rejects.toThrow(
      "Sink connector is configured with 'delete.enabled=false' and 'pk.mode=record_key' and therefore requires records with a non-null Struct value and non-null Struct schema, but found record at (topic='refused',partition=0,offset=8,timestamp=0) with a null value and null value schema.",
    );
  });

  test("inserts through COPY straight into the table equal inserted statements", async () => {
    const sample = sampleChanges(7).filter((c) => !c.tombstone);
    const unique = [...new Map(sample.map((c) => [c.id, c])).values()];
    const settings = { "insert.mode": "insert", "batch.size": "5" };
    await writer(settings, { copy: "always" }).write(records("copy_insert", unique));
    await writer(settings, { copy: "never" }).write(records("statements_insert", unique));
    expect(table("copy_insert")).toBe(table("statements_insert"));
    expect(pg.psql('SELECT count(*) FROM "copy_insert"').trim()).toBe(String(unique.length));
  });

  test.each([
    ["upsert", "a value the stage's column refuses", "value too long for type character varying(3)"],
    ["upsert", "a row the table's constraint refuses", 'violates check constraint "narrow_upsert2_id_check"'],
    ["insert", "a value the column refuses", "value too long for type character varying(3)"],
  ])(
    "%s: %s fails the write with the server's message, commits nothing and the next write works",
    async (mode, _, message) => {
      const name = `narrow_${mode}${message.includes("check") ? 2 : 1}`;
      pg.psql(`CREATE TABLE "${name}" (id INT PRIMARY KEY CHECK (id < 100), name VARCHAR(3))`);
      const schema = SchemaBuilder.struct()
        .field("id", SchemaBuilder.int32().build())
        .field("name", SchemaBuilder.string().build())
        .build();
      const row = (id: number, text: string) =>
        sinkRecord("narrow", id, id, schema, new Struct(schema).put("id", id).put("name", text));
      const w = writer({ "insert.mode": mode, "table.name.format": name }, { copy: "always" });
      const bad = message.includes("check") ? row(100, "ok") : row(2, "too long");
      await expect(w.write([row(1, "a"), bad, row(3, "c")])).rejects.toThrow(message);
      expect(pg.psql(`SELECT count(*) FROM "${name}"`).trim()).toBe("0");
      await w.write([row(1, "a"), row(3, "c")]);
      expect(table(name)).toBe("1|a\n3|c");
    },
  );
});

describe("JDBC sink: MariaDB statements within max_allowed_packet", () => {
  let maria: MariaDbServer;
  let db: Database | undefined;

  beforeAll(async () => {
    maria = await startMariaDb();
    maria.query("SET GLOBAL max_allowed_packet = 65536");
  });
  afterAll(async () => {
    await db?.close();
    await maria?.stop();
  });

  test("a put of 300 KB is written in statements that fit a 64 KB packet", async () => {
    const config = parseJdbcSinkConfig({
      "connection.url": `jdbc:mariadb://127.0.0.1:${maria.port}/${maria.database}`,
      "connection.user": maria.user,
      "pk.mode": "record_key",
      "insert.mode": "upsert",
      "auto.create": "true",
    });
    db = openDatabase(config.target, { user: config.user, password: config.password }, config.timeZone);
    const schema = SchemaBuilder.struct()
      .field("id", SchemaBuilder.int32().build())
      .field("body", SchemaBuilder.string().build())
      .build();
    const all = Array.from({ length: 300 }, (_, id) =>
      sinkRecord("wide", id, id, schema, new Struct(schema).put("id", id).put("body", `${id}:`.padEnd(1000, "é"))),
    );
    await new JdbcWriter(config, db).write(all);
    expect(maria.query("SELECT COUNT(*), SUM(CHAR_LENGTH(body)) FROM wide").trim()).toBe("300\t300000");
  });
});
