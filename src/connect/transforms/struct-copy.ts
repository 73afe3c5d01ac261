// Deriving a Struct from another: Kafka's SchemaUtil.copySchemaBasics for the schema, and field values
// read as replace.null.with.default says.
import { SchemaBuilder, Struct, type Field, type Schema } from "../api/data/index.ts";

/** SchemaUtil.copySchemaBasics: name, version, doc and parameters (not optionality, default or fields). */
export function copySchemaBasics(source: Schema, builder?: SchemaBuilder): SchemaBuilder {
  const target = builder ?? (source.type === "ARRAY" && source.valueSchema !== null ? SchemaBuilder.array(source.valueSchema) : new SchemaBuilder(source.type));
  if (source.name !== null) target.name(source.name);
  if (source.version !== null) target.version(source.version);
  if (source.doc !== null) target.doc(source.doc);
  if (source.parameters !== null) target.parameters(source.parameters);
  return target;
}

/** A struct field's value honouring `replace.null.with.default` (Struct.get vs getWithoutDefault). */
export function fieldValue(struct: Struct, field: Field, replaceNullWithDefault: boolean): unknown {
  return replaceNullWithDefault ? struct.get(field) : struct.getWithoutDefault(field.name);
}
