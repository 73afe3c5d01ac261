import { describe, expect, test } from "bun:test";
import { tableOfCatalog, type CaptureOptions } from "#src/connectors/postgres-cdc/captured-table.ts";
import type { CatalogTable } from "#src/connectors/postgres-cdc/catalog.ts";
import { parsePostgresCdcConfig, postgresCdcSettings } from "#src/connectors/postgres-cdc/config.ts";
import { configuredSelection, resultPositions, snapshotQuery } from "#src/connectors/postgres-cdc/snapshot.ts";
import { ConfigError } from "#src/platform/settings.ts";

const base = { "database.hostname": "db", "database.user": "cdc", "database.dbname": "app", "topic.prefix": "p" };
const INT4 = 23;
const TEXT = 25;

const catalog: CatalogTable = {
  columns: ["id", "name", "secret"].map((name, i) => ({
    name,
    typeOid: i === 0 ? INT4 : TEXT,
    typeName: i === 0 ? "int4" : "text",
    typeModifier: -1,
    optional: i !== 0,
    isPrimaryKey: i === 0,
    defaultExpression: null,
  })),
  userTypes: new Map(),
};

function tableWith(settings: Record<string, string> = {}) {
  const config = parsePostgresCdcConfig({ ...base, ...settings });
  const options: CaptureOptions = {
    topicPrefix: "p",
    filters: config.filters,
    decimalHandlingMode: config.decimalHandlingMode,
    timePrecisionMode: config.timePrecisionMode,
  };
  return tableOfCatalog({ schema: "public", table: "t" }, catalog, options);
}

describe("snapshot.include.collection.list", () => {
  const captured = ["public.a", "public.b", "Sales.Orders"].map((n) => {
    const [schema, table] = n.split(".");
    return { schema: schema!, table: table! };
  });
  const names = (include: string | undefined) => {
    const config = parsePostgresCdcConfig({
      ...base,
      ...(include === undefined ? {} : { "snapshot.include.collection.list": include }),
    });
    const selection = configuredSelection(config.snapshotInclude, config.snapshotOverrides);
    return captured.filter((t) => selection.includes(t)).map((t) => `${t.schema}.${t.table}`);
  };

  test("empty: every captured table; else those whose schema.table or quoted name a pattern matches", () => {
    expect(names(undefined)).toEqual(["public.a", "public.b", "Sales.Orders"]);
    expect(names("public\\.b")).toEqual(["public.b"]);
    // Anchored and case-insensitive, as Debezium's patterns; "schema"."table" matches too.
    expect(names("public\\.")).toEqual([]);
    expect(names("sales\\.orders,public.a")).toEqual(["public.a", "Sales.Orders"]);
    expect(names('"public"\\."b"')).toEqual(["public.b"]);
  });
});

describe("snapshot.select.statement.overrides", () => {
  test("a table's statement, by schema.table; the others read their captured columns", () => {
    const config = parsePostgresCdcConfig({
      ...base,
      "snapshot.select.statement.overrides": "public.t, public.u",
      "snapshot.select.statement.overrides.public.t": " SELECT id FROM public.t WHERE id > 2 ",
      "snapshot.select.statement.overrides.public.u": "SELECT * FROM public.u;",
    });
    expect([...config.snapshotOverrides]).toEqual([
      ["public.t", "SELECT id FROM public.t WHERE id > 2"],
      ["public.u", "SELECT * FROM public.u;"],
    ]);
    const table = tableWith({ "column.exclude.list": "public.t.secret" });
    const selection = configuredSelection(config.snapshotInclude, config.snapshotOverrides);
    const override = (t: string) => selection.select({ schema: "public", table: t });
    expect(snapshotQuery({ schema: "public", table: "t" }, table, override("t"))).toEqual({
      sql: "SELECT id FROM public.t WHERE id > 2",
      overridden: true,
    });
    expect(snapshotQuery({ schema: "public", table: "u" }, table, override("u"))?.sql).toBe("SELECT * FROM public.u");
    expect(snapshotQuery({ schema: "public", table: "t" }, table, undefined)).toEqual({
      sql: 'SELECT "id", "name" FROM "public"."t"',
      overridden: false,
    });
  });

  test("each table's statement is a setting the connector takes (no unknown-setting warning)", () => {
    expect(postgresCdcSettings.accepts("snapshot.select.statement.overrides.public.t")).toBe(true);
    expect(postgresCdcSettings.accepts("snapshot.select.statement.override.public.t")).toBe(false);
  });

  test("a table named without its statement is refused", () => {
    expect(() => parsePostgresCdcConfig({ ...base, "snapshot.select.statement.overrides": "public.t" })).toThrow(
      ConfigError,
    );
    expect(() => parsePostgresCdcConfig({ ...base, "snapshot.select.statement.overrides": "public.t" })).toThrow(
      "snapshot.select.statement.overrides.public.t",
    );
  });

  test("the statement's columns go to the table's by name; excluded ones are dropped, unknown ones fail", () => {
    const table = tableWith({ "column.exclude.list": "public.t.secret" });
    const name = { schema: "public", table: "t" };
    expect(resultPositions(name, catalog, table, ["name", "id", "secret"])).toEqual([1, 0, null]);
    expect(() => resultPositions(name, catalog, table, ["id", "upper"])).toThrow(
      "Column 'upper' of the snapshot query of public.t",
    );
  });
});

describe("notification settings", () => {
  test("channels, and the sink's topic required with the sink", () => {
    const config = parsePostgresCdcConfig({
      ...base,
      "notification.enabled.channels": "sink, LOG, jmx",
      "notification.sink.topic.name": "notes",
    });
    expect([...config.notificationChannels]).toEqual(["sink", "log"]);
    expect(config.unavailableNotificationChannels).toEqual(["jmx"]);
    expect(config.notificationSinkTopic).toBe("notes");
    expect(parsePostgresCdcConfig(base).notificationChannels.size).toBe(0);
    expect(() => parsePostgresCdcConfig({ ...base, "notification.enabled.channels": "sink" })).toThrow(
      "notification.sink.topic.name",
    );
  });
});
