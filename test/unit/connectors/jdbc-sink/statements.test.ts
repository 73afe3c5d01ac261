// The JDBC sink's SQL per dialect and mode: placeholders only, Confluent's column types and upserts.
import { describe, expect, test } from "bun:test";
import { ConnectDate, Decimal, SchemaBuilder, Time, Timestamp } from "#src/connect/api/data/index.ts";
import { mysqlDialect, postgresDialect, type SinkField } from "#src/connectors/jdbc-sink/dialects.ts";
import { SqlBuilder, tableIdOf } from "#src/connectors/jdbc-sink/statements.ts";

const pg = new SqlBuilder(postgresDialect, true);
const my = new SqlBuilder(mysqlDialect, true);
const t = tableIdOf("orders");

const field = (name: string, schema: SinkField["schema"], isPrimaryKey = false): SinkField => ({
  name,
  schema,
  isPrimaryKey,
});

describe("INSERT / upsert", () => {
  test("PostgreSQL: numbered placeholders, row by row, key columns first", () => {
    expect(pg.insert(t, ["id"], ["name", "qty"], 2, false)).toBe(
      'INSERT INTO "orders"("id","name","qty") VALUES ($1,$2,$3),($4,$5,$6)',
    );
  });
  test("PostgreSQL upsert: ON CONFLICT (pk) DO UPDATE SET c=EXCLUDED.c, or DO NOTHING without other columns", () => {
    expect(pg.insert(t, ["id"], ["name"], 1, true)).toBe(
      'INSERT INTO "orders"("id","name") VALUES ($1,$2) ON CONFLICT ("id") DO UPDATE SET "name"=EXCLUDED."name"',
    );
    expect(pg.insert(t, ["a", "b"], [], 1, true)).toBe(
      'INSERT INTO "orders"("a","b") VALUES ($1,$2) ON CONFLICT ("a","b") DO NOTHING',
    );
  });
  test("MySQL: ? placeholders, backticks, ON DUPLICATE KEY UPDATE c=VALUES(c)", () => {
    expect(my.insert(t, ["id"], ["name"], 2, false)).toBe("INSERT INTO `orders`(`id`,`name`) VALUES (?,?),(?,?)");
    expect(my.insert(t, ["id"], ["name", "qty"], 1, true)).toBe(
      "INSERT INTO `orders`(`id`,`name`,`qty`) VALUES (?,?,?) ON DUPLICATE KEY UPDATE `name`=VALUES(`name`),`qty`=VALUES(`qty`)",
    );
    expect(my.insert(t, ["id"], [], 1, true)).toBe(
      "INSERT INTO `orders`(`id`) VALUES (?) ON DUPLICATE KEY UPDATE `id`=VALUES(`id`)",
    );
  });
  test("quote.sql.identifiers=never leaves names bare; a schema-qualified table keeps both parts", () => {
    const bare = new SqlBuilder(postgresDialect, false);
    expect(bare.insert(tableIdOf("public.orders"), ["id"], ["name"], 1, false)).toBe(
      "INSERT INTO public.orders(id,name) VALUES ($1,$2)",
    );
    expect(pg.table(tableIdOf("public.orders"))).toBe('"public"."orders"');
  });
  test("a quote inside a name is doubled, never breaking out of the identifier", () => {
    expect(pg.identifier('we"ird')).toBe('"we""ird"');
    expect(my.identifier("we`ird")).toBe("`we``ird`");
  });
});

describe("UPDATE / DELETE", () => {
  test("update: SET the non-key columns, WHERE the key columns", () => {
    expect(pg.update(t, ["a", "b"], ["x", "y"])).toBe(
      'UPDATE "orders" SET "x" = $1, "y" = $2 WHERE "a" = $3 AND "b" = $4',
    );
    expect(my.update(t, ["id"], ["x"])).toBe("UPDATE `orders` SET `x` = ? WHERE `id` = ?");
  });
  test("delete by key", () => {
    expect(pg.delete(t, ["a", "b"])).toBe('DELETE FROM "orders" WHERE "a" = $1 AND "b" = $2');
    expect(my.delete(t, ["id"])).toBe("DELETE FROM `orders` WHERE `id` = ?");
  });
});

describe("CREATE / ALTER", () => {
  const fields = [
    field("id", SchemaBuilder.int64().build(), true),
    field("name", SchemaBuilder.string().optional().build()),
    field("qty", SchemaBuilder.int32().defaultValue(1).build()),
    field("note", SchemaBuilder.string().defaultValue("it's").build()),
  ];
  test("PostgreSQL CREATE TABLE: NULL/NOT NULL, defaults as escaped literals, PRIMARY KEY", () => {
    expect(pg.createTable(t, fields)).toBe(
      'CREATE TABLE "orders" (\n"id" BIGINT NOT NULL,\n"name" TEXT NULL,\n"qty" INT DEFAULT 1 NOT NULL,\n"note" TEXT DEFAULT \'it\'\'s\' NOT NULL,\nPRIMARY KEY("id"))',
    );
  });
  test("MySQL CREATE TABLE: a string key is VARCHAR(256) (TEXT cannot be a key)", () => {
    const sql = my.createTable(t, [
      field("id", SchemaBuilder.string().build(), true),
      field("v", SchemaBuilder.string().optional().build()),
    ]);
    expect(sql).toBe("CREATE TABLE `orders` (\n`id` VARCHAR(256) NOT NULL,\n`v` TEXT NULL,\nPRIMARY KEY(`id`))");
  });
  test("ALTER TABLE adds every missing column in one statement", () => {
    expect(
      pg.alterTable(t, [
        field("a", SchemaBuilder.bool().optional().build()),
        field("b", SchemaBuilder.float64().optional().build()),
      ]),
    ).toBe('ALTER TABLE "orders" ADD "a" BOOLEAN NULL, ADD "b" DOUBLE PRECISION NULL');
    expect(my.alterTable(t, [field("a", SchemaBuilder.bool().optional().build())])).toBe(
      "ALTER TABLE `orders` ADD `a` TINYINT NULL",
    );
  });
  test("MySQL string defaults escape backslashes too", () => {
    expect(my.createTable(t, [field("s", SchemaBuilder.string().defaultValue("a\\'b").build())])).toBe(
      "CREATE TABLE `orders` (\n`s` TEXT DEFAULT 'a\\\\''b' NOT NULL)",
    );
  });
});

describe("column types (Confluent's dialects)", () => {
  const cases: [string, SinkField["schema"], string, string][] = [
    ["int8", SchemaBuilder.int8().build(), "SMALLINT", "TINYINT"],
    ["int16", SchemaBuilder.int16().build(), "SMALLINT", "SMALLINT"],
    ["int32", SchemaBuilder.int32().build(), "INT", "INT"],
    ["int64", SchemaBuilder.int64().build(), "BIGINT", "BIGINT"],
    ["float32", SchemaBuilder.float32().build(), "REAL", "FLOAT"],
    ["float64", SchemaBuilder.float64().build(), "DOUBLE PRECISION", "DOUBLE"],
    ["boolean", SchemaBuilder.bool().build(), "BOOLEAN", "TINYINT"],
    ["string", SchemaBuilder.string().build(), "TEXT", "TEXT"],
    ["bytes", SchemaBuilder.bytes().build(), "BYTEA", "VARBINARY(1024)"],
    ["Decimal", Decimal.schema(3), "DECIMAL", "DECIMAL(65,3)"],
    ["Date", ConnectDate.SCHEMA, "DATE", "DATE"],
    ["Time", Time.SCHEMA, "TIME", "TIME(3)"],
    ["Timestamp", Timestamp.SCHEMA, "TIMESTAMP", "DATETIME(3)"],
  ];
  test.each(cases)("%s", (_, schema, pgType, myType) => {
    expect(postgresDialect.columnType(field("c", schema))).toBe(pgType);
    expect(mysqlDialect.columnType(field("c", schema))).toBe(myType);
  });
});

describe("PostgreSQL bulk writes through a stage", () => {
  test("the stage takes the target's column types and is dropped at commit", () => {
    expect(pg.stageTable("sluice_stage_1", tableIdOf("public.orders"), ["id", "name"])).toBe(
      'CREATE TEMP TABLE sluice_stage_1 ON COMMIT DROP AS SELECT "id","name" FROM "public"."orders" WITH NO DATA',
    );
  });
  test("COPY names its columns", () => {
    expect(pg.copyFrom('"orders"', ["id", "name"])).toBe('COPY "orders"("id","name") FROM STDIN');
  });
  test("staged rows are upserted with the dialect's clause", () => {
    expect(pg.upsertFromStage(t, "s1", ["id"], ["name"])).toBe(
      'INSERT INTO "orders"("id","name") SELECT "id","name" FROM s1 ON CONFLICT ("id") DO UPDATE SET "name"=EXCLUDED."name"',
    );
    expect(pg.upsertFromStage(t, "s1", ["a", "b"], [])).toBe(
      'INSERT INTO "orders"("a","b") SELECT "a","b" FROM s1 ON CONFLICT ("a","b") DO NOTHING',
    );
  });
  test("staged keys delete the rows that have them", () => {
    expect(pg.deleteFromStage(t, "s2", ["id", "region"])).toBe(
      'DELETE FROM "orders" AS d USING s2 AS s WHERE d."id" = s."id" AND d."region" = s."region"',
    );
  });
});
