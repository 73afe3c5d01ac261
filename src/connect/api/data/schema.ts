// Kafka Connect's schema model (org.apache.kafka.connect.data.{Schema, ConnectSchema, SchemaBuilder,
// Field}): the same types, builder calls, validation rules and error messages, with TS properties in
// place of Java getters (`schema.optional`, `schema.name`, `schema.fields`).
//
// Which JS values each type accepts (ConnectSchema.validateValue):
//   INT8 / INT16 / INT32  number, an integer in the type's range
//   INT64                 bigint in the signed 64-bit range, or a number that is a safe integer;
//                         converters always produce bigint
//   FLOAT32 / FLOAT64     number (float32 values are rounded to float32 when written)
//   BOOLEAN boolean · STRING string · BYTES Uint8Array (Buffer included)
//   ARRAY                 Array
//   MAP                   Map (any keys; converters produce Map) or a plain object (string keys)
//   STRUCT                Struct whose schema equals the field's schema
//   logical types         Decimal: BigDecimal · Date, Time, Timestamp: Date — as in Kafka, chosen by
//                         schema name, so a Date schema rejects a plain number
import { BigDecimal } from "../../../jvm/big-decimal.ts";
import { valuesEqual } from "./equality.ts";
import { DataException, SchemaBuilderException } from "./errors.ts";
import { isPlainObject, javaClassName } from "./java-format.ts";
import { isStruct } from "./struct-brand.ts";
import type { Struct } from "./struct.ts";

export const Type = {
  INT8: "INT8",
  INT16: "INT16",
  INT32: "INT32",
  INT64: "INT64",
  FLOAT32: "FLOAT32",
  FLOAT64: "FLOAT64",
  BOOLEAN: "BOOLEAN",
  STRING: "STRING",
  BYTES: "BYTES",
  ARRAY: "ARRAY",
  MAP: "MAP",
  STRUCT: "STRUCT",
} as const;
export type Type = (typeof Type)[keyof typeof Type];

/** Lower-case name, as Schema.Type.getName() (`int32`, `struct`). */
export function typeName(type: Type): string {
  return type.toLowerCase();
}

export function isPrimitive(type: Type): boolean {
  return type !== "ARRAY" && type !== "MAP" && type !== "STRUCT";
}

/** Logical type names whose values are not the underlying type's (ConnectSchema.LOGICAL_TYPE_CLASSES). */
const DECIMAL_NAME = "org.apache.kafka.connect.data.Decimal";
const DATE_LIKE_NAMES = new Set([
  "org.apache.kafka.connect.data.Date",
  "org.apache.kafka.connect.data.Time",
  "org.apache.kafka.connect.data.Timestamp",
]);

export class Field {
  constructor(
    readonly name: string,
    readonly index: number,
    readonly schema: Schema,
  ) {}

  equals(other: unknown): boolean {
    return (
      this === other ||
      (other instanceof Field &&
        other.index === this.index &&
        other.name === this.name &&
        other.schema.equals(this.schema))
    );
  }

  toString(): string {
    return `Field{name=${this.name}, index=${this.index}, schema=${this.schema}}`;
  }
}

export interface SchemaDefinition {
  type: Type;
  optional?: boolean;
  defaultValue?: unknown;
  name?: string | null;
  version?: number | null;
  doc?: string | null;
  parameters?: ReadonlyMap<string, string> | null;
  fields?: readonly Field[] | null;
  keySchema?: Schema | null;
  valueSchema?: Schema | null;
}

/**
 * The same schema with some attributes changed (built directly, without SchemaBuilder, which for
 * instance refuses a struct default of the schema itself).
 */
export function copySchema(schema: Schema, changes: Omit<Partial<SchemaDefinition>, "type"> = {}): Schema {
  return new ConnectSchema({
    type: schema.type,
    optional: schema.optional,
    defaultValue: schema.defaultValue,
    name: schema.name,
    version: schema.version,
    doc: schema.doc,
    parameters: schema.parameters,
    fields: schema.type === "STRUCT" ? schema.fields : null,
    keySchema: schema.type === "MAP" ? schema.keySchema : null,
    valueSchema: schema.type === "MAP" || schema.type === "ARRAY" ? schema.valueSchema : null,
    ...changes,
  });
}

/** Types whose values' contents can change after Struct.put() (a struct's fields, an array's or a map's entries). */
const MUTABLE_TYPES: ReadonlySet<Type> = new Set(["STRUCT", "ARRAY", "MAP"]);

/** An immutable schema. Most code builds one with SchemaBuilder; this is Kafka's ConnectSchema. */
export class ConnectSchema {
  readonly type: Type;
  readonly optional: boolean;
  /** null when there is none. */
  readonly defaultValue: unknown;
  readonly name: string | null;
  readonly version: number | null;
  readonly doc: string | null;
  /** Insertion-ordered, as Kafka's LinkedHashMap; null when no parameter was set. */
  readonly parameters: ReadonlyMap<string, string> | null;
  private readonly _fields: readonly Field[] | null;
  private readonly _fieldsByName: ReadonlyMap<string, Field> | null;
  /**
   * What Struct.validate() looks at again, a struct's values having been checked by put(): the fields a
   * null breaks (required, without a default), and those whose values can change after put (struct,
   * array, map). Empty for other types.
   */
  readonly requiredFields: readonly Field[];
  readonly mutableFields: readonly Field[];
  private readonly _keySchema: Schema | null;
  private readonly _valueSchema: Schema | null;

  constructor(definition: SchemaDefinition) {
    this.type = definition.type;
    this.optional = definition.optional ?? false;
    this.defaultValue = definition.defaultValue ?? null;
    this.name = definition.name ?? null;
    this.version = definition.version ?? null;
    this.doc = definition.doc ?? null;
    this.parameters = definition.parameters ?? null;
    if (this.type === "STRUCT") {
      this._fields = Object.freeze([...(definition.fields ?? [])]);
      this._fieldsByName = new Map(this._fields.map((f) => [f.name, f]));
      this.requiredFields = this._fields.filter((f) => !f.schema.optional && f.schema.defaultValue === null);
      this.mutableFields = this._fields.filter((f) => MUTABLE_TYPES.has(f.schema.type));
    } else {
      this._fields = null;
      this._fieldsByName = null;
      this.requiredFields = this.mutableFields = [];
    }
    this._keySchema = definition.keySchema ?? null;
    this._valueSchema = definition.valueSchema ?? null;
  }

  get fields(): readonly Field[] {
    if (this._fields === null) throw new DataException("Cannot list fields on non-struct type");
    return this._fields;
  }

  /** The named field, or null. */
  field(fieldName: string): Field | null {
    if (this._fieldsByName === null) throw new DataException("Cannot look up fields on non-struct type");
    return this._fieldsByName.get(fieldName) ?? null;
  }

  get keySchema(): Schema | null {
    if (this.type !== "MAP") throw new DataException("Cannot look up key schema on non-map type");
    return this._keySchema;
  }

  get valueSchema(): Schema | null {
    if (this.type !== "MAP" && this.type !== "ARRAY")
      throw new DataException("Cannot look up value schema on non-array and non-map type");
    return this._valueSchema;
  }

  /** Throws DataException when `value` does not fit this schema. */
  validateValue(value: unknown): void {
    validateValue(this, value);
  }

  /** Kafka's ConnectSchema.equals: every attribute, fields, key/value schemas and the default deeply. */
  equals(other: unknown): boolean {
    if (this === other) return true;
    if (!(other instanceof ConnectSchema)) return false;
    return (
      this.optional === other.optional &&
      this.version === other.version &&
      this.name === other.name &&
      this.doc === other.doc &&
      this.type === other.type &&
      valuesEqual(this.defaultValue, other.defaultValue) &&
      fieldsEqual(this._fields, other._fields) &&
      nullableSchemasEqual(this._keySchema, other._keySchema) &&
      nullableSchemasEqual(this._valueSchema, other._valueSchema) &&
      parametersEqual(this.parameters, other.parameters)
    );
  }

  toString(): string {
    return this.name !== null ? `Schema{${this.name}:${this.type}}` : `Schema{${this.type}}`;
  }
}

export type Schema = ConnectSchema;

function fieldsEqual(a: readonly Field[] | null, b: readonly Field[] | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  return a.every((f, i) => f.equals(b[i]));
}

function nullableSchemasEqual(a: Schema | null, b: Schema | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

function parametersEqual(a: ReadonlyMap<string, string> | null, b: ReadonlyMap<string, string> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** The attributes validation reads: a ConnectSchema, or a SchemaBuilder's state while it is being built. */
interface SchemaView {
  readonly type: Type;
  readonly optional: boolean;
  readonly name: string | null;
  readonly keySchema: Schema | null;
  readonly valueSchema: Schema | null;
}

/**
 * ConnectSchema.validateValue: throws DataException unless `value` fits `schema`. With `fieldName`
 * the message names the field, as Struct.put does.
 */
export function validateValue(schema: Schema, value: unknown, fieldName?: string): void {
  validateAt(schema, value, fieldName, "");
}

/**
 * Where a value is, for messages: `nesting` (the array elements and map keys or values around it) and
 * the field. Only put together when a value is refused: validating is on every put's path.
 */
function location(fieldName: string | undefined, nesting: string): string {
  return nesting + (fieldName === undefined ? "value" : `field: "${fieldName}"`);
}

function validateAt(schema: SchemaView, value: unknown, fieldName: string | undefined, nesting: string): void {
  if (value === null || value === undefined) {
    if (!schema.optional)
      throw new DataException(
        `Invalid value: null used for required ${location(fieldName, nesting)}, schema type: ${schema.type}`,
      );
    return;
  }
  if (!hasExpectedClass(schema, value)) {
    const named = schema.name !== null ? ` "${schema.name}"` : "";
    throw new DataException(
      `Invalid Java object for schema${named} with type ${schema.type}: ${javaClassName(value)} for ${location(fieldName, nesting)}`,
    );
  }
  switch (schema.type) {
    case "STRUCT": {
      const struct = value as Struct;
      // A builder is never equal to a built schema, so (as in Kafka) a builder rejects struct defaults.
      if (struct.schema !== schema && !struct.schema.equals(schema))
        throw new DataException("Struct schemas do not match.");
      struct.validate();
      break;
    }
    case "ARRAY": {
      const inArray = `element of array ${nesting}`;
      const elementSchema = schemaDefinedFor(schema.valueSchema, location(fieldName, inArray));
      for (const element of value as unknown[]) validateAt(elementSchema, element, fieldName, inArray);
      break;
    }
    case "MAP": {
      const inKey = `key of map ${nesting}`;
      const inValue = `value of map ${nesting}`;
      const keySchema = schemaDefinedFor(schema.keySchema, location(fieldName, inKey));
      const valueSchema = schemaDefinedFor(schema.valueSchema, location(fieldName, inValue));
      for (const [k, v] of mapEntries(value as Map<unknown, unknown> | Record<string, unknown>)) {
        validateAt(keySchema, k, fieldName, inKey);
        validateAt(valueSchema, v, fieldName, inValue);
      }
      break;
    }
  }
}

function schemaDefinedFor(schema: Schema | null, location: string): Schema {
  if (schema === null) throw new DataException(`No schema defined for ${location}`);
  return schema;
}

/** Entries of a MAP value, whichever of the two accepted shapes it has. */
export function mapEntries(value: Map<unknown, unknown> | Record<string, unknown>): Iterable<[unknown, unknown]> {
  return value instanceof Map ? value : Object.entries(value);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT_RANGES = { INT8: 0x80, INT16: 0x8000, INT32: 0x80000000 } as const;

function hasExpectedClass(schema: SchemaView, value: unknown): boolean {
  if (schema.name === DECIMAL_NAME) return value instanceof BigDecimal;
  if (schema.name !== null && DATE_LIKE_NAMES.has(schema.name)) return value instanceof Date;
  return acceptsPlain(schema.type, value);
}

/** Whether `value` is a JS representation of `type`, logical types aside. */
export function acceptsPlain(type: Type, value: unknown): boolean {
  switch (type) {
    case "INT8":
    case "INT16":
    case "INT32": {
      const limit = INT_RANGES[type];
      return typeof value === "number" && Number.isInteger(value) && value >= -limit && value < limit;
    }
    case "INT64":
      return typeof value === "bigint" ? value >= INT64_MIN && value <= INT64_MAX : Number.isSafeInteger(value);
    case "FLOAT32":
    case "FLOAT64":
      return typeof value === "number";
    case "BOOLEAN":
      return typeof value === "boolean";
    case "STRING":
      return typeof value === "string";
    case "BYTES":
      return value instanceof Uint8Array;
    case "ARRAY":
      return Array.isArray(value);
    case "MAP":
      return value instanceof Map || isPlainObject(value);
    case "STRUCT":
      return isStruct(value);
  }
}

/** Kafka's fluent SchemaBuilder. Each attribute may be set once; `build()` gives the immutable schema. */
export class SchemaBuilder {
  readonly type: Type;
  private _optional: boolean | null = null;
  private _defaultValue: unknown = null;
  private _name: string | null = null;
  private _version: number | null = null;
  private _doc: string | null = null;
  private _parameters: Map<string, string> | null = null;
  private readonly _fields: Map<string, Field> | null;
  private _keySchema: Schema | null = null;
  private _valueSchema: Schema | null = null;

  constructor(type: Type) {
    if (type === null || type === undefined) throw new SchemaBuilderException("type cannot be null");
    this.type = type;
    this._fields = type === "STRUCT" ? new Map() : null;
  }

  static type(type: Type): SchemaBuilder {
    return new SchemaBuilder(type);
  }
  static int8(): SchemaBuilder {
    return new SchemaBuilder("INT8");
  }
  static int16(): SchemaBuilder {
    return new SchemaBuilder("INT16");
  }
  static int32(): SchemaBuilder {
    return new SchemaBuilder("INT32");
  }
  static int64(): SchemaBuilder {
    return new SchemaBuilder("INT64");
  }
  static float32(): SchemaBuilder {
    return new SchemaBuilder("FLOAT32");
  }
  static float64(): SchemaBuilder {
    return new SchemaBuilder("FLOAT64");
  }
  static bool(): SchemaBuilder {
    return new SchemaBuilder("BOOLEAN");
  }
  static string(): SchemaBuilder {
    return new SchemaBuilder("STRING");
  }
  static bytes(): SchemaBuilder {
    return new SchemaBuilder("BYTES");
  }
  static struct(): SchemaBuilder {
    return new SchemaBuilder("STRUCT");
  }

  static array(valueSchema: Schema | SchemaBuilder): SchemaBuilder {
    if (valueSchema === null || valueSchema === undefined)
      throw new SchemaBuilderException("valueSchema cannot be null.");
    const builder = new SchemaBuilder("ARRAY");
    builder._valueSchema = built(valueSchema);
    return builder;
  }

  static map(keySchema: Schema | SchemaBuilder, valueSchema: Schema | SchemaBuilder): SchemaBuilder {
    if (keySchema === null || keySchema === undefined) throw new SchemaBuilderException("keySchema cannot be null.");
    if (valueSchema === null || valueSchema === undefined)
      throw new SchemaBuilderException("valueSchema cannot be null.");
    const builder = new SchemaBuilder("MAP");
    builder._keySchema = built(keySchema);
    builder._valueSchema = built(valueSchema);
    return builder;
  }

  get isOptional(): boolean {
    return this._optional === true;
  }

  optional(): this {
    checkCanSet("optional", this._optional, true);
    this._optional = true;
    return this;
  }

  required(): this {
    checkCanSet("optional", this._optional, false);
    this._optional = false;
    return this;
  }

  /** Checked against the builder as it is now (so call optional() first for a null default). */
  defaultValue(value: unknown): this {
    checkCanSet("default", this._defaultValue, value);
    try {
      validateAt(this.view(), value, undefined, "");
    } catch (e) {
      throw new SchemaBuilderException("Invalid default value", { cause: e });
    }
    this._defaultValue = value ?? null;
    return this;
  }

  name(name: string): this {
    checkCanSet("name", this._name, name);
    this._name = name;
    return this;
  }

  version(version: number): this {
    checkCanSet("version", this._version, version);
    this._version = version;
    return this;
  }

  doc(doc: string): this {
    checkCanSet("doc", this._doc, doc);
    this._doc = doc;
    return this;
  }

  parameter(name: string, value: string): this {
    (this._parameters ??= new Map()).set(name, value);
    return this;
  }

  /** Adds all; an empty set adds nothing (so `parameters` stays null, as in Kafka). */
  parameters(parameters: ReadonlyMap<string, string> | Readonly<Record<string, string>>): this {
    const entries = parameters instanceof Map ? [...parameters] : Object.entries(parameters);
    if (entries.length === 0) return this;
    for (const [k, v] of entries) this.parameter(k, v);
    return this;
  }

  field(fieldName: string, fieldSchema: Schema | SchemaBuilder): this {
    if (this._fields === null) throw new SchemaBuilderException(`Cannot create fields on type ${this.type}`);
    if (fieldName === null || fieldName === undefined || fieldName === "")
      throw new SchemaBuilderException("fieldName cannot be null.");
    if (fieldSchema === null || fieldSchema === undefined)
      throw new SchemaBuilderException(`fieldSchema for field ${fieldName} cannot be null.`);
    if (this._fields.has(fieldName))
      throw new SchemaBuilderException(`Cannot create field because of field name duplication ${fieldName}`);
    this._fields.set(fieldName, new Field(fieldName, this._fields.size, built(fieldSchema)));
    return this;
  }

  build(): Schema {
    return new ConnectSchema({
      type: this.type,
      optional: this.isOptional,
      defaultValue: this._defaultValue,
      name: this._name,
      version: this._version,
      doc: this._doc,
      parameters: this._parameters === null ? null : new Map(this._parameters),
      fields: this._fields === null ? null : [...this._fields.values()],
      keySchema: this._keySchema,
      valueSchema: this._valueSchema,
    });
  }

  /** Same as build(), for code written against Kafka's `builder.schema()`. */
  schema(): Schema {
    return this.build();
  }

  private view(): SchemaView {
    return {
      type: this.type,
      optional: this.isOptional,
      name: this._name,
      keySchema: this._keySchema,
      valueSchema: this._valueSchema,
    };
  }
}

function built(schema: Schema | SchemaBuilder): Schema {
  return schema instanceof SchemaBuilder ? schema.build() : schema;
}

function checkCanSet(attribute: string, current: unknown, value: unknown): void {
  if (current !== null && current !== value)
    throw new SchemaBuilderException(`Invalid SchemaBuilder call: ${attribute} has already been set.`);
}

const primitive = (type: Type, optional: boolean) => new ConnectSchema({ type, optional });

/** Schema.Type and the predefined schemas, spelled as in Java (`Schema.INT32_SCHEMA`). */
export const Schema = {
  Type,
  INT8_SCHEMA: primitive("INT8", false),
  INT16_SCHEMA: primitive("INT16", false),
  INT32_SCHEMA: primitive("INT32", false),
  INT64_SCHEMA: primitive("INT64", false),
  FLOAT32_SCHEMA: primitive("FLOAT32", false),
  FLOAT64_SCHEMA: primitive("FLOAT64", false),
  BOOLEAN_SCHEMA: primitive("BOOLEAN", false),
  STRING_SCHEMA: primitive("STRING", false),
  BYTES_SCHEMA: primitive("BYTES", false),
  OPTIONAL_INT8_SCHEMA: primitive("INT8", true),
  OPTIONAL_INT16_SCHEMA: primitive("INT16", true),
  OPTIONAL_INT32_SCHEMA: primitive("INT32", true),
  OPTIONAL_INT64_SCHEMA: primitive("INT64", true),
  OPTIONAL_FLOAT32_SCHEMA: primitive("FLOAT32", true),
  OPTIONAL_FLOAT64_SCHEMA: primitive("FLOAT64", true),
  OPTIONAL_BOOLEAN_SCHEMA: primitive("BOOLEAN", true),
  OPTIONAL_STRING_SCHEMA: primitive("STRING", true),
  OPTIONAL_BYTES_SCHEMA: primitive("BYTES", true),
} as const;
