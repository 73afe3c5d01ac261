// Deriving a Struct from another: Kafka's SchemaUtil.copySchemaBasics for the schema, and the field
// values copied across, read as replace.null.with.default says.
import { SchemaBuilder, Struct, type Field, type Schema } from "../api/data/index.ts";

/** SchemaUtil.copySchemaBasics: name, version, doc and parameters (not optionality, default or fields). */
export function copySchemaBasics(source: Schema, builder?: SchemaBuilder): SchemaBuilder {
  const target =
    builder ??
    (source.type === "ARRAY" && source.valueSchema !== null
      ? SchemaBuilder.array(source.valueSchema)
      : new SchemaBuilder(source.type));
  if (source.name !== null) target.name(source.name);
  if (source.version !== null) target.version(source.version);
  if (source.doc !== null) target.doc(source.doc);
  if (source.parameters !== null) target.parameters(source.parameters);
  return target;
}

/** A struct field's value honouring `replace.null.with.default` (Struct.get vs getWithoutDefault). */
export function fieldValue(struct: Struct, field: Field | string, replaceNullWithDefault: boolean): unknown {
  return replaceNullWithDefault
    ? struct.get(field)
    : struct.getWithoutDefault(typeof field === "string" ? field : field.name);
}

/**
 * `target` with every field of `source` put under the same name: its value read honouring
 * replace.null.with.default and, when given, passed through `convert`. Fields only `target` has are
 * the caller's to fill.
 */
export function copyFields(
  source: Struct,
  target: Struct,
  replaceNullWithDefault: boolean,
  convert?: (field: Field, value: unknown) => unknown,
): Struct {
  for (const f of source.schema.fields) {
    const value = fieldValue(source, f, replaceNullWithDefault);
    target.put(f.name, convert === undefined ? value : convert(f, value));
  }
  return target;
}

/**
 * A Struct of `schema` (derived from `source`'s) with every field read from `source`, honouring
 * replace.null.with.default: by the same Field (the schemas have the same fields), or by the name
 * `sourceName` gives (a field renamed, or others dropped).
 */
export function structFromFields(
  schema: Schema,
  source: Struct,
  replaceNullWithDefault: boolean,
  sourceName?: (field: Field) => string,
): Struct {
  const struct = new Struct(schema);
  for (const f of schema.fields)
    struct.put(f, fieldValue(source, sourceName === undefined ? f : sourceName(f), replaceNullWithDefault));
  return struct;
}
