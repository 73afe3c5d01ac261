import { describe, expect, test } from "bun:test";
import { capturesColumn, capturesTable, parsePostgresCdcConfig } from "../../../../src/connectors/postgres-cdc/config.ts";

const base = { "database.hostname": "db", "database.user": "cdc", "database.dbname": "app" };

describe("postgres-cdc settings", () => {
  test("Debezium's defaults, and database.server.name for topic.prefix", () => {
    const config = parsePostgresCdcConfig({ ...base, "database.server.name": "legacy" });
    expect(config).toMatchObject({ port: 5432, snapshotFetchSize: 10240, password: "", topicPrefix: "legacy", slotName: "debezium", publicationName: "dbz_publication", publicationAutocreate: "all_tables", snapshotMode: "initial", tombstonesOnDelete: true });
    expect([...config.skippedOperations]).toEqual(["t"]);
    expect([...parsePostgresCdcConfig({ ...base, "topic.prefix": "p", "skipped.operations": "none" }).skippedOperations]).toEqual([]);
  });

  test("bad values fail with the setting's name", () => {
    expect(() => parsePostgresCdcConfig({ ...base, "topic.prefix": "p", "snapshot.mode": "sometimes" })).toThrow("snapshot.mode");
    expect(() => parsePostgresCdcConfig({ "database.hostname": "db", "database.user": "cdc", "topic.prefix": "p" })).toThrow("database.dbname");
    // Required, as Debezium's (no default user).
    expect(() => parsePostgresCdcConfig({ "database.hostname": "db", "database.dbname": "app", "topic.prefix": "p" })).toThrow("database.user");
  });

  test("include and exclude lists are anchored regular expressions", () => {
    const { filters } = parsePostgresCdcConfig({ ...base, "topic.prefix": "p", "table.include.list": "public\\.item.*,inv\\.stock", "column.exclude.list": "public\\.items\\.secret" });
    expect(capturesTable(filters, "public", "items")).toBe(true);
    expect(capturesTable(filters, "inv", "stock")).toBe(true);
    expect(capturesTable(filters, "inv", "stock_old")).toBe(false);
    expect(capturesTable(filters, "other", "items")).toBe(false);
    expect(capturesColumn(filters, "public", "items", "secret")).toBe(false);
    expect(capturesColumn(filters, "public", "items", "secret2")).toBe(true);
  });
});
