// One captured table as events need it: its topic and schemas, and for each column (in the order
// tuples carry them) the converter of its text, or null for a column left out (filtered, or of a type
// Debezium does not map). Built from a Relation message plus the catalog while streaming, and from
// the catalog alone for the snapshot.
import { BigDecimal } from "../../jvm/big-decimal.ts";
import { ConnectDate, Decimal, Time, Timestamp, Type, type Schema, Struct } from "../../connect/api/data/index.ts";
import { capturesColumn, type CaptureFilters } from "./config.ts";
import { tableSchemas, type Row, type TableColumn, type TableSchemas } from "./envelope.ts";
import type { CatalogTable, TableName } from "./catalog.ts";
import { type RelationMessage, type Tuple, UNCHANGED_TOAST } from "./pgoutput.ts";
import { columnMapping, sourceColumnType, type ColumnMapping, type TypeMappingOptions } from "./column-types.ts";
import { applyRule, messageKeyColumns, ruleFor, type ColumnRules } from "./column-rules.ts";
import { logger } from "../../platform/log.ts";

const log = logger("postgres-cdc");

export interface CapturedTable extends TableName {
  readonly schemas: TableSchemas;
  /** By tuple position. */
  readonly columns: readonly ({ readonly name: string; readonly mapping: ColumnMapping } | null)[];
}

export interface CaptureOptions extends Omit<TypeMappingOptions, "userTypes"> {
  readonly topicPrefix: string;
  readonly filters: CaptureFilters;
  /** column.mask.*, column.truncate.*, *.propagate.source.type and message.key.columns. */
  readonly columnRules?: ColumnRules;
}

interface SourceColumn {
  readonly name: string;
  readonly typeOid: number;
  readonly typeModifier: number;
  /** From the catalog; undefined for a column it does not know (yet). */
  readonly typeName?: string;
  readonly optional: boolean;
  readonly isKey: boolean;
  readonly defaultExpression: string | null;
}

/** The table as of this Relation message: its columns and types, with nullability and key from the catalog. */
export function tableOfRelation(
  relation: RelationMessage,
  catalog: CatalogTable,
  options: CaptureOptions,
): CapturedTable {
  const byName = new Map(catalog.columns.map((c) => [c.name, c]));
  const hasPrimaryKey = catalog.columns.some((c) => c.isPrimaryKey);
  const columns = relation.columns.map((column) => {
    const known = byName.get(column.name);
    // Debezium keys by the primary key; without one, by the replica identity index.
    const isKey = hasPrimaryKey ? (known?.isPrimaryKey ?? false) : relation.replicaIdentity === "index" && column.isKey;
    return {
      name: column.name,
      typeOid: column.typeOid,
      typeModifier: column.typeModifier,
      typeName: known?.typeOid === column.typeOid ? known.typeName : undefined,
      optional: known?.optional ?? true,
      isKey,
      defaultExpression: known?.defaultExpression ?? null,
    };
  });
  return capturedTable({ schema: relation.namespace, table: relation.name }, columns, catalog, options);
}

/** The table as the snapshot reads it (values converted as Debezium converts what its snapshot query reads). */
export function tableOfCatalog(name: TableName, catalog: CatalogTable, options: CaptureOptions): CapturedTable {
  const columns = catalog.columns.map((c) => ({ ...c, isKey: c.isPrimaryKey }));
  return capturedTable(name, columns, catalog, { ...options, readBy: "snapshot" });
}

function capturedTable(
  name: TableName,
  source: readonly SourceColumn[],
  catalog: CatalogTable,
  options: CaptureOptions & Pick<TypeMappingOptions, "readBy">,
): CapturedTable {
  const typeOptions: TypeMappingOptions = { ...options, userTypes: catalog.userTypes };
  const rules = options.columnRules;
  // message.key.columns, where it names columns of this table, replaces the primary key.
  const chosenKey = rules
    ? messageKeyColumns(
        rules,
        name,
        source.map((c) => c.name),
      )
    : null;
  const eventColumns: TableColumn[] = [];
  const unmapped: string[] = [];
  const columns = source.map((column) => {
    const isKey = chosenKey === null ? column.isKey : chosenKey.includes(column.name);
    // As Debezium: a key column is always in the key, whatever the column filters say of the value.
    const inValue = capturesColumn(options.filters, name.schema, name.table, column.name);
    if (!inValue && !isKey) return null;
    const mapping = columnMapping(column, typeOptions);
    if (mapping === null) {
      unmapped.push(`${column.name} (${column.typeName ?? `type OID ${column.typeOid}`})`);
      return null;
    }
    const sourceType = sourceColumnType(column, catalog.userTypes, options.readBy);
    const rule = rules ? ruleFor(rules, name, column.name, sourceType.typeName) : null;
    const applied = rule === null ? null : applyRule(rule, { name: column.name, ...sourceType });
    const valueSchema =
      applied !== null && applied.parameters.size > 0
        ? columnMapping(column, typeOptions, applied.parameters)!.schema
        : undefined;
    const mapValue = valueSchema?.type === Type.STRUCT ? inSchema(valueSchema, applied?.mapValue) : applied?.mapValue;
    eventColumns.push({
      name: column.name,
      schema: mapping.schema,
      isKey,
      inValue,
      ...(chosenKey !== null && isKey ? { keyRank: chosenKey.indexOf(column.name) } : {}),
      ...(valueSchema ? { valueSchema } : {}),
      ...(mapValue ? { mapValue } : {}),
    });
    return { name: column.name, mapping };
  });
  if (unmapped.length > 0) warnUnmapped(name, unmapped);
  return { ...name, schemas: tableSchemas(options.topicPrefix, name.schema, name.table, eventColumns), columns };
}

/** What has been warned of, so a table read again (each Relation message, each snapshot) warns once. */
const warnedUnmapped = new Set<string>();

/** Columns of types Sluice does not map are left out of events (as Debezium leaves out those it does not know): say so, once per table. */
function warnUnmapped(name: TableName, columns: readonly string[]): void {
  const key = `${name.schema}.${name.table}: ${columns.join(", ")}`;
  if (warnedUnmapped.has(key)) return;
  warnedUnmapped.add(key);
  log.warn(
    { table: `${name.schema}.${name.table}`, columns },
    `columns of ${name.schema}.${name.table} left out of its events: ${columns.join(", ")}; their types have no Connect mapping in Sluice (include.unknown.datatypes is not supported)`,
  );
}

/**
 * A struct value (VariableScaleDecimal) remade in the value's schema, which a rule's parameters made
 * another than the key's: a struct must carry its field's exact schema.
 */
function inSchema(schema: Schema, then: ((value: unknown) => unknown) | undefined): (value: unknown) => unknown {
  return (value) => {
    let remade = value;
    if (value instanceof Struct) {
      const struct = new Struct(schema);
      for (const field of schema.fields) struct.put(field, value.get(field.name));
      remade = struct;
    }
    return then ? then(remade) : remade;
  };
}

/** Debezium's stand-in for a TOASTed value an update did not change (the server does not resend it). */
const UNAVAILABLE_VALUE = "__debezium_unavailable_value";

/** The row of a tuple as Connect values, in the order of the table's captured columns. */
export function rowOf(table: CapturedTable, tuple: Tuple): Row {
  const row: unknown[] = [];
  const columns = table.columns;
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    if (column === null || column === undefined) continue;
    const value = tuple[i];
    if (typeof value === "string") row.push(column.mapping.convert(value));
    else if (value === undefined) row.push(null);
    else if (value === null) {
      // A key-only old tuple sends the other columns as nulls, NOT NULL ones too: Debezium then
      // puts the column's default, or without one its converters' fallback (zero, "", false),
      // where the schema allows no null.
      const schema = column.mapping.schema;
      row.push(schema.optional ? null : (schema.defaultValue ?? fallback(schema)));
    } else if (value === UNCHANGED_TOAST) row.push(unavailable(column.mapping.schema));
    else throw new Error("Binary tuple values were not requested");
  }
  return row;
}

function fallback(schema: Schema): unknown {
  switch (schema.name) {
    case Decimal.LOGICAL_NAME:
      return BigDecimal.fromBigInt(0n, Number(schema.parameters?.get(Decimal.SCALE_FIELD) ?? 0));
    case ConnectDate.LOGICAL_NAME:
    case Time.LOGICAL_NAME:
    case Timestamp.LOGICAL_NAME:
      return new Date(0);
  }
  switch (schema.type) {
    case Type.STRING:
      return "";
    case Type.BOOLEAN:
      return false;
    case Type.INT64:
      return 0n;
    case Type.BYTES:
      return new Uint8Array(0);
    case Type.ARRAY:
      return [];
    case Type.STRUCT: {
      const struct = new Struct(schema);
      for (const field of schema.fields) struct.put(field, field.schema.optional ? null : fallback(field.schema));
      return struct;
    }
    default:
      return 0;
  }
}

/** As Debezium: the marker where a plain string or bytes column can hold it, else null. */
function unavailable(schema: Schema): unknown {
  if (schema.name !== null) return null;
  if (schema.type === Type.STRING) return UNAVAILABLE_VALUE;
  if (schema.type === Type.BYTES) return new TextEncoder().encode(UNAVAILABLE_VALUE);
  return null;
}
