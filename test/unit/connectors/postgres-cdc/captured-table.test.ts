import { afterEach, describe, expect, test } from "bun:test";
import { tableOfCatalog, type CaptureOptions } from "#src/connectors/postgres-cdc/captured-table.ts";
import type { CatalogColumn, CatalogTable } from "#src/connectors/postgres-cdc/catalog.ts";
import { Oid } from "#src/connectors/postgres-cdc/column-types.ts";
import { captureLogs, logLines } from "../../../fixtures/logs.ts";

const options: CaptureOptions = {
  topicPrefix: "shop",
  decimalHandlingMode: "precise",
  timePrecisionMode: "adaptive",
  filters: {
    schemaInclude: [],
    schemaExclude: [],
    tableInclude: [],
    tableExclude: [],
    columnInclude: [],
    columnExclude: [],
  },
};
const column = (name: string, typeOid: number, typeName: string, isPrimaryKey = false): CatalogColumn => ({
  name,
  typeOid,
  typeModifier: -1,
  typeName,
  optional: !isPrimaryKey,
  isPrimaryKey,
  defaultExpression: null,
});
const COMPOSITE = 16700;
const catalog: CatalogTable = {
  columns: [
    column("id", Oid.INT4, "int4", true),
    column("cash", Oid.MONEY, "money"),
    column("at", 3220, "pg_lsn"),
    column("pair", COMPOSITE, "pair"),
  ],
  userTypes: new Map(),
};

let logs: ReturnType<typeof captureLogs> | undefined;
afterEach(() => logs?.stop());

describe("columns of types without a mapping", () => {
  test("are left out of the table's events and named in one WARN per table", () => {
    logs = captureLogs();
    const table = tableOfCatalog({ schema: "public", table: "kinds" }, catalog, options);
    tableOfCatalog({ schema: "public", table: "kinds" }, catalog, options);
    expect(table.columns.map((c) => c?.name ?? null)).toEqual(["id", "cash", null, null]);
    expect(table.schemas.valueSchema.fields.map((f) => f.name)).toEqual(["id", "cash"]);
    const warnings = logLines(logs.text()).filter((l) => l.level === "warn" && l.msg.includes("left out"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain("columns of public.kinds left out of its events: at (pg_lsn), pair (pair)");
    expect(warnings[0]!.columns).toEqual(["at (pg_lsn)", "pair (pair)"]);
  });
});
