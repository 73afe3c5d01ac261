// Which columns records become under each pk.mode, JDBC URLs, settings checks and bound values.
import { describe, expect, test } from "bun:test";
import {
  BigDecimal,
  ConnectDate,
  Decimal,
  SchemaBuilder,
  Struct,
  Time,
  Timestamp,
} from "#src/connect/api/data/index.ts";
import type { SinkRecord } from "#src/connect/api/records.ts";
import { parseConnectionUrl } from "#src/connectors/jdbc-sink/connection-url.ts";
import { keyValues, nonKeyValues, recordLayout, type FieldsConfig } from "#src/connectors/jdbc-sink/record-fields.ts";
import { parseJdbcSinkConfig } from "#src/connectors/jdbc-sink/settings.ts";
import { sqlParam, wallClock } from "#src/connectors/jdbc-sink/sql-values.ts";

const keySchema = SchemaBuilder.struct()
  .field("id", SchemaBuilder.int32().build())
  .field("region", SchemaBuilder.string().build())
  .build();
const valueSchema = SchemaBuilder.struct()
  .field("id", SchemaBuilder.int32().build())
  .field("name", SchemaBuilder.string().build())
  .field("qty", SchemaBuilder.int32().optional().build())
  .build();
const key = new Struct(keySchema).put("id", 7).put("region", "eu");
const value = new Struct(valueSchema).put("id", 7).put("name", "bolt").put("qty", 3);

function record(changes: Partial<SinkRecord> = {}): SinkRecord {
  return {
    topic: "orders",
    kafkaPartition: 2,
    kafkaOffset: 41,
    keySchema,
    key,
    valueSchema,
    value,
    timestamp: 0,
    timestampType: "CreateTime",
    headers: [],
    originalTopic: "orders",
    originalKafkaPartition: 2,
    originalKafkaOffset: 41,
    ...changes,
  };
}

const names = (fields: readonly { name: string }[]) => fields.map((f) => f.name);
const cfg = (c: Partial<FieldsConfig>): FieldsConfig => ({ pkMode: "none", pkFields: [], fieldsWhitelist: [], ...c });

describe("pk.mode", () => {
  test("none: no key, every value field", () => {
    const layout = recordLayout(cfg({}), "orders", keySchema, valueSchema);
    expect(names(layout.keyFields)).toEqual([]);
    expect(names(layout.nonKeyFields)).toEqual(["id", "name", "qty"]);
  });
  test("kafka: __connect_topic/partition/offset (or three given names) and the coordinates as values", () => {
    const layout = recordLayout(cfg({ pkMode: "kafka" }), "orders", keySchema, valueSchema);
    expect(names(layout.keyFields)).toEqual(["__connect_topic", "__connect_partition", "__connect_offset"]);
    expect(keyValues(cfg({ pkMode: "kafka" }), layout, record())).toEqual(["orders", 2, 41n]);
    expect(
      names(recordLayout(cfg({ pkMode: "kafka", pkFields: ["t", "p", "o"] }), "orders", null, valueSchema).keyFields),
    ).toEqual(["t", "p", "o"]);
  });
  test("record_key with a struct key: all its fields, or the listed ones", () => {
    const all = cfg({ pkMode: "record_key" });
    const layout = recordLayout(all, "orders", keySchema, valueSchema);
    expect(names(layout.keyFields)).toEqual(["id", "region"]);
    expect(names(layout.nonKeyFields)).toEqual(["name", "qty"]);
    expect(keyValues(all, layout, record())).toEqual([7, "eu"]);
    expect(nonKeyValues(layout, record())).toEqual(["bolt", 3]);
    expect(
      names(
        recordLayout(cfg({ pkMode: "record_key", pkFields: ["region"] }), "orders", keySchema, valueSchema).keyFields,
      ),
    ).toEqual(["region"]);
    expect(() =>
      recordLayout(cfg({ pkMode: "record_key", pkFields: ["nope"] }), "orders", keySchema, valueSchema),
    ).toThrow("record key schema does not contain field: nope");
  });
  test("record_key with a primitive key needs exactly one name", () => {
    const prim = SchemaBuilder.int64().build();
    const layout = recordLayout(cfg({ pkMode: "record_key", pkFields: ["key"] }), "orders", prim, valueSchema);
    expect(names(layout.keyFields)).toEqual(["key"]);
    expect(
      keyValues(cfg({ pkMode: "record_key", pkFields: ["key"] }), layout, record({ keySchema: prim, key: 5n })),
    ).toEqual([5n]);
    expect(() => recordLayout(cfg({ pkMode: "record_key" }), "orders", prim, valueSchema)).toThrow(
      "Need exactly one PK column",
    );
    expect(() => recordLayout(cfg({ pkMode: "record_key" }), "orders", null, valueSchema)).toThrow(
      "record key schema is missing",
    );
  });
  test("record_value: key fields taken from the value, not repeated among the others", () => {
    const layout = recordLayout(cfg({ pkMode: "record_value", pkFields: ["id"] }), "orders", null, valueSchema);
    expect(names(layout.keyFields)).toEqual(["id"]);
    expect(names(layout.nonKeyFields)).toEqual(["name", "qty"]);
  });
  test("fields.whitelist filters the non-key columns only", () => {
    const layout = recordLayout(
      cfg({ pkMode: "record_value", pkFields: ["id"], fieldsWhitelist: ["qty"] }),
      "orders",
      null,
      valueSchema,
    );
    expect(names(layout.keyFields)).toEqual(["id"]);
    expect(names(layout.nonKeyFields)).toEqual(["qty"]);
  });
  test("tombstones (no value schema) have key columns only; non-struct values and nested fields are refused", () => {
    expect(names(recordLayout(cfg({ pkMode: "record_key" }), "orders", keySchema, null).nonKeyFields)).toEqual([]);
    expect(() => recordLayout(cfg({}), "orders", null, SchemaBuilder.string().build())).toThrow(
      "Value schema must be of type Struct",
    );
    const nested = SchemaBuilder.struct()
      .field("tags", SchemaBuilder.array(SchemaBuilder.string().build()).build())
      .build();
    expect(() => recordLayout(cfg({}), "orders", null, nested)).toThrow("Unsupported source data type: ARRAY");
  });
});

describe("connection.url", () => {
  test("PostgreSQL, MySQL and MariaDB JDBC URLs", () => {
    expect(parseConnectionUrl("jdbc:postgresql://db.local:6543/shop?user=u&password=p&sslmode=require")).toMatchObject({
      dialect: "postgresql",
      host: "db.local",
      port: 6543,
      database: "shop",
      user: "u",
      password: "p",
      postgresTls: { mode: "require" },
    });
    expect(parseConnectionUrl("jdbc:mysql://127.0.0.1/shop")).toMatchObject({
      dialect: "mysql",
      host: "127.0.0.1",
      port: 3306,
      database: "shop",
      mysqlTls: { use: "preferred" },
    });
    expect(parseConnectionUrl("jdbc:mariadb://[::1]:3307/shop")).toMatchObject({
      dialect: "mysql",
      host: "::1",
      port: 3307,
    });
    expect(() => parseConnectionUrl("jdbc:oracle:thin:@localhost:1521:orcl")).toThrow("connection.url");
  });
});

describe("settings", () => {
  const base = { "connection.url": "jdbc:postgresql://localhost/db" };
  test("Confluent's defaults; connection.username and fields.include are accepted names", () => {
    const c = parseJdbcSinkConfig({ ...base, "connection.username": "me", "fields.include": "a,b" });
    expect(c).toMatchObject({
      insertMode: "insert",
      pkMode: "none",
      batchSize: 3000,
      maxRetries: 10,
      retryBackoffMs: 3000,
      tableNameFormat: "${topic}",
      quoteIdentifiers: true,
      user: "me",
      fieldsWhitelist: ["a", "b"],
    });
    expect(parseJdbcSinkConfig({ ...base, "quote.sql.identifiers": "NEVER" }).quoteIdentifiers).toBe(false);
  });
  test("delete.enabled requires pk.mode=record_key; kafka mode takes zero or three names", () => {
    expect(() => parseJdbcSinkConfig({ ...base, "delete.enabled": "true", "pk.mode": "record_value" })).toThrow(
      "Primary key mode must be 'record_key' when delete support is enabled",
    );
    expect(() => parseJdbcSinkConfig({ ...base, "pk.mode": "kafka", "pk.fields": "a,b" })).toThrow("or exactly 3");
    expect(() => parseJdbcSinkConfig({ ...base, "insert.mode": "merge" })).toThrow("insert.mode");
  });
});

describe("bound values", () => {
  test("logical types as UTC text, int64 as exact text, booleans per dialect", () => {
    expect(sqlParam(new Date(Date.UTC(2024, 0, 2)), ConnectDate.SCHEMA, "postgresql")).toBe("2024-01-02");
    expect(sqlParam(new Date(37_812_345), Time.SCHEMA, "mysql")).toBe("10:30:12.345");
    expect(sqlParam(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), Timestamp.SCHEMA, "postgresql")).toBe(
      "2024-01-02 03:04:05.006",
    );
    expect(sqlParam(new BigDecimal(-12345n, 7), Decimal.schema(7), "postgresql")).toBe("-0.0012345");
    expect(sqlParam(9007199254740993n, SchemaBuilder.int64().build(), "mysql")).toBe("9007199254740993");
    expect(sqlParam(true, SchemaBuilder.bool().build(), "mysql")).toBe(1);
    expect(sqlParam(true, SchemaBuilder.bool().build(), "postgresql")).toBe(true);
    expect(sqlParam(null, SchemaBuilder.string().optional().build(), "postgresql")).toBeNull();
  });

  test("db.timezone: the zone's wall clock (daylight saving included), for dates and times too, as Confluent's sink binds them", () => {
    const paris = wallClock("Europe/Paris");
    expect(sqlParam(new Date(Date.UTC(2024, 6, 1, 22, 30, 0, 7)), Timestamp.SCHEMA, "postgresql", paris)).toBe(
      "2024-07-02 00:30:00.007",
    );
    expect(sqlParam(new Date(Date.UTC(2024, 0, 1, 22, 30)), Timestamp.SCHEMA, "mysql", paris)).toBe(
      "2024-01-01 23:30:00.000",
    );
    const newYork = wallClock("America/New_York");
    expect(sqlParam(new Date(Date.UTC(2024, 0, 2)), ConnectDate.SCHEMA, "postgresql", newYork)).toBe("2024-01-01");
    expect(sqlParam(new Date(37_812_345), Time.SCHEMA, "postgresql", newYork)).toBe("05:30:12.345");
    expect(wallClock("UTC")(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)))).toBe("2024-01-02T03:04:05.006");
    expect(() =>
      parseJdbcSinkConfig({ "connection.url": "jdbc:postgresql://h/db", "db.timezone": "Mars/Olympus" }),
    ).toThrow("db.timezone");
  });
});
