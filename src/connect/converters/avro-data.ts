// Connect data ↔ Avro, mapped as Confluent's AvroData (io.confluent.connect.avro.AvroData) maps it,
// so that Sluice and a JVM worker derive the same Avro schema text from a Connect schema (hence the
// same registry subject versions and ids) and read each other's records back to equal Connect data.
//
// Schemas are built as the registry's own Avro model (AvroNode) and rendered by its canonical writer
// (Java Avro's Schema.toString). Values are what avsc writes for that schema with unions wrapped
// (`{branch: value}`), longs as bigint and bytes as Buffer — see avro.ts — and are read back the same
// way. Quirks of AvroData are kept on purpose (each is noted where it happens).
import { commonDataSettings, flattenSingletonUnions } from "./data-config.ts";
import { asBuffer } from "../../platform/buffers.ts";
import type { ParsedSettings, Setting } from "../../platform/settings.ts";
import { canonicalString } from "../../schema/avro/canonical.ts";
import { isJsonObject, JsonNumber, writeJson, type JsonObject, type JsonValue } from "../../schema/avro/json.ts";
import type { AvroName, AvroNode, FieldNode, PrimitiveType, RecordNode } from "../../schema/avro/model.ts";
import { avroFormat, isValidDefault, type AvroParsedSchema } from "../../schema/avro/index.ts";
import { BigDecimal } from "../../jvm/big-decimal.ts";
import { javaParseInteger } from "../../jvm/java-numbers.ts";
import {
  DataException,
  isPlainObject,
  javaClassName,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  Schema,
  SchemaBuilder,
  copySchema,
  acceptsPlain,
  mapEntries,
  validateValue,
  type Field,
  Struct,
} from "../api/data/index.ts";
import { DerivedSchemas } from "./derived-schemas.ts";

const AVRO_NAMESPACE = "io.confluent.connect.avro";
const DEFAULT_SCHEMA_NAME = "ConnectDefault";
const DEFAULT_SCHEMA_FULL_NAME = `${AVRO_NAMESPACE}.${DEFAULT_SCHEMA_NAME}`;
const MAP_ENTRY_TYPE_NAME = "MapEntry";
const KEY_FIELD = "key";
const VALUE_FIELD = "value";

const CONNECT_NAME_PROP = "connect.name";
const CONNECT_DOC_PROP = "connect.doc";
const CONNECT_RECORD_DOC_PROP = "connect.record.doc";
const CONNECT_ENUM_DOC_PROP = "connect.enum.doc";
const CONNECT_VERSION_PROP = "connect.version";
const CONNECT_DEFAULT_VALUE_PROP = "connect.default";
const CONNECT_PARAMETERS_PROP = "connect.parameters";
const CONNECT_INTERNAL_TYPE_NAME = "connect.internal.type";
const CONNECT_TYPE_PROP = "connect.type";
const AVRO_RECORD_DOC_PROP = `${AVRO_NAMESPACE}.record.doc`;
const AVRO_ENUM_DOC_PREFIX_PROP = `${AVRO_NAMESPACE}.enum.doc.`;
const AVRO_FIELD_DOC_PREFIX_PROP = `${AVRO_NAMESPACE}.field.doc.`;
/** Marks a Connect default that came from an Avro field default (so it is not written back as connect.default). */
const AVRO_FIELD_DEFAULT_FLAG_PROP = `${AVRO_NAMESPACE}.field.default`;
const AVRO_ENUM_DEFAULT_PREFIX_PROP = `${AVRO_NAMESPACE}.enum.default.`;
const AVRO_TYPE_UNION = `${AVRO_NAMESPACE}.Union`;
const AVRO_TYPE_ENUM = `${AVRO_NAMESPACE}.Enum`;
const AVRO_TYPE_ANYTHING = `${AVRO_NAMESPACE}.Anything`;
const GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union";
const GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum";
const GENERALIZED_TYPE_UNION_PREFIX = "connect_union_";
const GENERALIZED_TYPE_UNION_FIELD_PREFIX = "connect_union_field_";
const CONNECT_AVRO_FIXED_SIZE_PROP = "connect.fixed.size";
const CONNECT_AVRO_DECIMAL_PRECISION_PROP = "connect.decimal.precision";
const CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT = 64;

/** AvroDataConfig (and AbstractDataConfig) settings, by Confluent's names and defaults. */
export const avroDataSettings: readonly Setting[] = [
  {
    name: "enhanced.avro.schema.support",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Toggle for enabling/disabling enhanced avro schema support: Enum symbol preservation and Package Name awareness",
  },
  {
    name: "scrub.invalid.names",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Whether to scrub invalid names by replacing invalid characters with valid ones",
  },
  {
    name: "connect.meta.data",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Toggle for enabling/disabling connect converter to add its meta data to the output schema or not",
  },
  {
    name: "discard.type.doc.default",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Only Avro field doc and default will be retained during conversion of Avro and Connect schema.",
  },
  {
    name: "allow.optional.map.keys",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Allow optional string map key when converting from Connect Schema to Avro Schema.",
  },
  flattenSingletonUnions,
  ...commonDataSettings,
];

export interface AvroDataOptions {
  readonly enhancedSchemaSupport: boolean;
  readonly scrubInvalidNames: boolean;
  readonly connectMetaData: boolean;
  readonly discardTypeDocDefault: boolean;
  readonly allowOptionalMapKeys: boolean;
  readonly flattenSingletonUnions: boolean;
  readonly generalizedSumTypeSupport: boolean;
  readonly ignoreDefaultForNullables: boolean;
  readonly cacheSize: number;
}

const DEFAULT_AVRO_DATA_OPTIONS: AvroDataOptions = {
  enhancedSchemaSupport: false,
  scrubInvalidNames: false,
  connectMetaData: true,
  discardTypeDocDefault: false,
  allowOptionalMapKeys: false,
  flattenSingletonUnions: true,
  generalizedSumTypeSupport: false,
  ignoreDefaultForNullables: false,
  cacheSize: 1000,
};

export function avroDataOptions(settings: ParsedSettings): AvroDataOptions {
  return {
    enhancedSchemaSupport: settings.boolean("enhanced.avro.schema.support"),
    scrubInvalidNames: settings.boolean("scrub.invalid.names"),
    connectMetaData: settings.boolean("connect.meta.data"),
    discardTypeDocDefault: settings.boolean("discard.type.doc.default"),
    allowOptionalMapKeys: settings.boolean("allow.optional.map.keys"),
    flattenSingletonUnions: settings.boolean("flatten.singleton.unions"),
    generalizedSumTypeSupport: settings.boolean("generalized.sum.type.support"),
    ignoreDefaultForNullables: settings.boolean("ignore.default.for.nullables"),
    cacheSize: Math.max(1, settings.int("schemas.cache.config")),
  };
}

/** Connect schema + value, as a converter returns them. */
export interface ConnectData {
  readonly schema: Schema | null;
  readonly value: unknown;
}

// Named Avro types: the schemaless envelope, as AvroData.ANYTHING_SCHEMA is built.
const ANYTHING_SCHEMA_TEXT = JSON.stringify({
  type: "record",
  name: "Anything",
  namespace: AVRO_NAMESPACE,
  fields: [
    ...["boolean", "bytes", "double", "float", "int", "long", "string"].map((t) => ({
      name: t,
      type: ["null", t],
      default: null,
    })),
    { name: "array", type: ["null", { type: "array", items: "Anything" }], default: null },
    {
      name: "map",
      type: [
        "null",
        {
          type: "array",
          items: {
            type: "record",
            name: "MapEntry",
            fields: [
              { name: "key", type: "Anything" },
              { name: "value", type: "Anything" },
            ],
          },
        },
      ],
      default: null,
    },
  ],
});
let anythingSchema: AvroParsedSchema | undefined;

function anything(): AvroParsedSchema {
  return (anythingSchema ??= avroFormat.parse(ANYTHING_SCHEMA_TEXT, []));
}

/** Which way schemaless values go through Anything: the field holding each JS value. */
const ANYTHING_FIELDS = ["boolean", "bytes", "double", "float", "int", "long", "string", "array", "map"] as const;

class FromConnectContext {
  /** Non-optional Connect schemas already converted (Connect equality, as Java's HashMap key). */
  private readonly converted: [Schema, AvroNode][] = [];
  readonly seenNamedTypes = new Set<string>();
  private nameIndex = 0;

  lookup(schema: Schema): AvroNode | undefined {
    return this.converted.find(([s]) => s === schema || s.equals(schema))?.[1];
  }

  remember(schema: Schema, node: AvroNode): void {
    if (!this.lookup(schema)) this.converted.push([schema, node]);
  }

  nextNameIndex(): number {
    return ++this.nameIndex;
  }
}

interface ToConnectContext {
  /** Records being converted: meeting one again means a recursive schema. */
  readonly inProgress: Set<RecordNode>;
}

export class AvroData {
  readonly options: AvroDataOptions;
  private readonly fromConnectCache = new WeakMap<Schema, AvroParsedSchema>();
  private readonly derived: DerivedSchemas<AvroParsedSchema>;
  private readonly toConnectCache = new WeakMap<AvroNode, Map<number, Schema | null>>();
  /** The branch of an optional's union a value of `schema` is written as, with its key in avsc's wrapped union. */
  private readonly branches = new PairCache((union: AvroNode, schema) => {
    const node = branchFor(schema, union as Extract<AvroNode, { type: "union" }>, this.scrubFullName(schema.name));
    return { node, key: branchKey(node) };
  });
  private readonly recordPlans = new PairCache((node: RecordNode, schema) => this.makeRecordPlan(schema, node));
  private readonly readPlans = new PairCache((node: RecordNode, schema) => this.makeReadPlan(schema, node));
  /** Numbers the generalized union names (connect_union_<n>), for the life of this instance as in Java. */
  private unionIndex = 0;

  constructor(options: Partial<AvroDataOptions> = {}) {
    this.options = { ...DEFAULT_AVRO_DATA_OPTIONS, ...options };
    this.derived = new DerivedSchemas(
      this.options.cacheSize,
      (text) => avroFormat.parse(text, []),
      "The Avro schema derived from the Connect schema is invalid",
    );
  }

  // ------------------------------------------------------------------------------------------
  // Connect schema → Avro schema

  /** The Avro schema for a Connect schema (null: schemaless, the Anything record), parsed as the registry parses it. */
  fromConnectSchema(schema: Schema | null): AvroParsedSchema {
    if (schema === null) return anything();
    const cached = this.fromConnectCache.get(schema);
    if (cached) return cached;
    const text = canonicalString(this.fromConnectSchemaNode(schema, new FromConnectContext(), false));
    const parsed = this.derived.parse(text);
    this.fromConnectCache.set(schema, parsed);
    return parsed;
  }

  private fromConnectSchemaNode(schema: Schema, ctx: FromConnectContext, ignoreOptional: boolean): AvroNode {
    const o = this.options;
    const union = isUnionSchema(schema);
    if (!union && !schema.optional) {
      const cached = ctx.lookup(schema);
      if (cached) return cached;
    }
    const params = schema.parameters;
    // Extra type annotation for otherwise lossy conversions.
    let connectType: string | null = null;
    let base: AvroNode;
    switch (schema.type) {
      case "INT8":
        connectType = "int8";
        base = primitive("int");
        break;
      case "INT16":
        connectType = "int16";
        base = primitive("int");
        break;
      case "INT32":
        base = primitive("int");
        break;
      case "INT64":
        base = primitive("long");
        break;
      case "FLOAT32":
        base = primitive("float");
        break;
      case "FLOAT64":
        base = primitive("double");
        break;
      case "BOOLEAN":
        base = primitive("boolean");
        break;
      case "STRING": {
        if (
          (o.generalizedSumTypeSupport || o.enhancedSchemaSupport) &&
          params &&
          (params.has(GENERALIZED_TYPE_ENUM) || params.has(AVRO_TYPE_ENUM))
        ) {
          const paramName = o.generalizedSumTypeSupport ? GENERALIZED_TYPE_ENUM : AVRO_TYPE_ENUM;
          const symbols = [...params.keys()]
            .filter((k) => k.startsWith(paramName + "."))
            .map((k) => k.slice(paramName.length + 1));
          // Called for its side effect too: an unnamed enum uses up a ConnectDefault index, as in Java.
          const [, simpleName] = this.nameOrDefault(ctx, schema.name);
          const enumName = params.get(paramName);
          if (enumName === undefined) throw new DataException(`Enum schema without the ${paramName} parameter`);
          const doc = o.discardTypeDocDefault
            ? params.get(CONNECT_ENUM_DOC_PROP)
            : params.get(AVRO_ENUM_DOC_PREFIX_PROP + simpleName);
          const enumDefault = o.discardTypeDocDefault
            ? undefined
            : params.get(AVRO_ENUM_DEFAULT_PREFIX_PROP + simpleName);
          base = {
            type: "enum",
            name: this.avroName(enumName),
            doc: doc ?? null,
            symbols,
            enumDefault: enumDefault ?? null,
            aliases: [],
            props: new Map(),
            logicalType: null,
          };
        } else base = primitive("string");
        break;
      }
      case "BYTES": {
        if (isFixedSchema(schema)) {
          const [space, name] = this.nameOrDefault(ctx, schema.name);
          base = {
            type: "fixed",
            name: avroName(space, name),
            doc: null,
            size: parseJavaInt(params!.get(CONNECT_AVRO_FIXED_SIZE_PROP)!),
            aliases: [],
            props: new Map(),
            logicalType: null,
          };
        } else base = primitive("bytes");
        if (isDecimalName(schema.name)) {
          base.props.set("scale", JsonNumber.ofInteger(BigInt(parseJavaInt(params?.get(Decimal.SCALE_FIELD)))));
          const precision = params?.get(CONNECT_AVRO_DECIMAL_PRECISION_PROP);
          base.props.set(
            "precision",
            JsonNumber.ofInteger(
              BigInt(precision !== undefined ? parseJavaInt(precision) : CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT),
            ),
          );
        }
        break;
      }
      case "ARRAY":
        base = {
          type: "array",
          items: this.fromConnectSchemaNode(schema.valueSchema!, ctx, false),
          props: new Map(),
          logicalType: null,
        };
        break;
      case "MAP": {
        const keySchema = schema.keySchema!;
        if (this.stringKeys(keySchema)) {
          base = {
            type: "map",
            values: this.fromConnectSchemaNode(schema.valueSchema!, ctx, false),
            props: new Map(),
            logicalType: null,
          };
        } else {
          // Avro maps only have string keys: other maps are arrays of key/value records.
          let entry: RecordNode;
          if (schema.name === null) {
            entry = record(avroName(AVRO_NAMESPACE, MAP_ENTRY_TYPE_NAME), null);
          } else {
            const [space, name] = this.nameOrDefault(ctx, schema.name);
            entry = record(avroName(space, name), null);
            entry.props.set(CONNECT_INTERNAL_TYPE_NAME, MAP_ENTRY_TYPE_NAME);
          }
          entry.fields.push(this.recordField(entry.fields.length, KEY_FIELD, keySchema, null, ctx));
          entry.fields.push(this.recordField(entry.fields.length, VALUE_FIELD, schema.valueSchema!, null, ctx));
          base = { type: "array", items: entry, props: new Map(), logicalType: null };
        }
        break;
      }
      case "STRUCT": {
        if (union) {
          const branches: AvroNode[] = schema.optional ? [primitive("null")] : [];
          for (const field of schema.fields)
            branches.push(this.fromConnectSchemaNode(nonOptional(field.schema), ctx, true));
          base = { type: "union", branches, props: new Map(), logicalType: null };
        } else if (schema.optional) {
          // The record inside the union carries the metadata; a union holds no properties.
          base = {
            type: "union",
            branches: [primitive("null"), this.fromConnectSchemaNode(nonOptional(schema), ctx, false)],
            props: new Map(),
            logicalType: null,
          };
        } else {
          const [space, name] = this.nameOrDefault(ctx, schema.name);
          const doc = params?.get(o.discardTypeDocDefault ? CONNECT_RECORD_DOC_PROP : AVRO_RECORD_DOC_PROP) ?? null;
          const rec = record(avroName(space, name), doc);
          for (const field of schema.fields) {
            const fieldDoc =
              !o.discardTypeDocDefault && params ? (params.get(AVRO_FIELD_DOC_PREFIX_PROP + field.name) ?? null) : null;
            rec.fields.push(
              this.recordField(rec.fields.length, this.scrubName(field.name), field.schema, fieldDoc, ctx),
            );
          }
          base = rec;
        }
        break;
      }
    }

    let result = base;
    if (base.type !== "union") {
      const props = base.props;
      if (o.connectMetaData) {
        if (schema.doc !== null) props.set(CONNECT_DOC_PROP, schema.doc);
        if (schema.version !== null) props.set(CONNECT_VERSION_PROP, JsonNumber.ofInteger(BigInt(schema.version)));
        if (params) {
          const json = this.parametersJson(params);
          if (json.size > 0) props.set(CONNECT_PARAMETERS_PROP, json);
        }
        if (schema.defaultValue !== null && (o.discardTypeDocDefault || !params?.has(AVRO_FIELD_DEFAULT_FLAG_PROP))) {
          props.set(CONNECT_DEFAULT_VALUE_PROP, this.defaultJson(schema, schema.defaultValue, false));
        }
        if (schema.name !== null) props.set(CONNECT_NAME_PROP, schema.name);
        if (connectType !== null) props.set(CONNECT_TYPE_PROP, connectType);
      }
      this.addLogicalType(schema, base);
      if (params) for (const [k, v] of params) if (k.startsWith("avro") && !props.has(k)) props.set(k, v);
      if (!ignoreOptional) result = maybeOptional(schema, base);
    }
    if (!schema.optional) ctx.remember(schema, result);
    return result;
  }

  /** Avro's logical type for Connect's Decimal, Date, Time and Timestamp (names compared ignoring case, as Java). */
  private addLogicalType(schema: Schema, base: AvroNode): void {
    const name = schema.name?.toLowerCase();
    if (name === undefined) return;
    let logical: string | undefined;
    if (name === Decimal.LOGICAL_NAME.toLowerCase()) logical = "decimal";
    else if (name === Time.LOGICAL_NAME.toLowerCase()) logical = "time-millis";
    else if (name === Timestamp.LOGICAL_NAME.toLowerCase()) logical = "timestamp-millis";
    else if (name === ConnectDate.LOGICAL_NAME.toLowerCase()) logical = "date";
    // Scale and precision are already set for a decimal; a scale outside [0, precision] still gets
    // the logicalType property (Java's "legacy" path), which Avro then ignores as invalid.
    if (logical !== undefined && !base.props.has("logicalType")) base.props.set("logicalType", logical);
  }

  private recordField(
    pos: number,
    name: string,
    fieldSchema: Schema,
    doc: string | null,
    ctx: FromConnectContext,
  ): FieldNode {
    const o = this.options;
    let defaultValue: JsonValue | undefined;
    if (fieldSchema.defaultValue !== null) defaultValue = this.defaultJson(fieldSchema, fieldSchema.defaultValue, true);
    else if (fieldSchema.optional) defaultValue = null;
    const scrubbedName = this.scrubFullName(fieldSchema.name);
    const alreadySeen = scrubbedName !== null && ctx.seenNamedTypes.has(scrubbedName);
    if (scrubbedName !== null) ctx.seenNamedTypes.add(scrubbedName);
    const type = this.fromConnectSchemaNode(fieldSchema, ctx, false);
    // Java's Field constructor rejects an invalid default; AvroData then drops it.
    if (defaultValue !== undefined && !isValidDefault(type, defaultValue)) defaultValue = undefined;
    const props: JsonObject = new Map();
    // A named type written a second time is only a reference: its parameters go on the field.
    if (
      o.connectMetaData &&
      alreadySeen &&
      fieldSchema.parameters &&
      fieldSchema.parameters.size > 0 &&
      isNamedOrHasNamedBranch(type)
    ) {
      const json = this.parametersJson(fieldSchema.parameters);
      if (json.size > 0) props.set(CONNECT_PARAMETERS_PROP, json);
    }
    return {
      name,
      pos,
      type,
      doc: o.discardTypeDocDefault ? fieldSchema.doc : doc,
      defaultValue,
      order: "ascending",
      aliases: [],
      props,
    };
  }

  private parametersJson(params: ReadonlyMap<string, string>): JsonObject {
    const json: JsonObject = new Map();
    for (const [k, v] of params)
      if (this.options.discardTypeDocDefault || k !== AVRO_FIELD_DEFAULT_FLAG_PROP) json.set(k, v);
    return json;
  }

  /**
   * A Connect default as Avro JSON (defaultValueFromConnect). As a field default Java passes it
   * through Avro's JacksonUtils, which turns a float into a double: `asField` does the same.
   */
  private defaultJson(schema: Schema, value: unknown, asField: boolean): JsonValue {
    if (value === null || value === undefined) return null;
    const v = logicalToAvro(schema, value);
    const fail = (): never => {
      throw new DataException(
        `Invalid type used for default value of ${schema.type} field: ${javaClassName(schema.defaultValue)}`,
      );
    };
    switch (schema.type) {
      case "INT8":
      case "INT16":
      case "INT32":
        if (!acceptsPlain(schema.type, v)) fail();
        return JsonNumber.ofInteger(BigInt(v as number));
      case "INT64":
        if (!acceptsPlain("INT64", v)) fail();
        return JsonNumber.ofInteger(BigInt(v as number | bigint));
      case "FLOAT32":
        if (typeof v !== "number") fail();
        return asField ? JsonNumber.ofDouble(Math.fround(v as number)) : JsonNumber.ofFloat(v as number);
      case "FLOAT64":
        if (typeof v !== "number") fail();
        return JsonNumber.ofDouble(v as number);
      case "BOOLEAN":
        if (typeof v !== "boolean") fail();
        return v as boolean;
      case "STRING":
        if (typeof v !== "string") fail();
        return v as string;
      case "BYTES":
        if (!(v instanceof Uint8Array)) fail();
        return latin1(v as Uint8Array);
      case "ARRAY":
        if (!Array.isArray(v)) fail();
        return (v as unknown[]).map((e) => this.defaultJson(schema.valueSchema!, e, asField));
      case "MAP": {
        if (!(v instanceof Map) && !isPlainObject(v)) fail();
        const entries = [...mapEntries(v as Map<unknown, unknown>)];
        if (this.stringKeys(schema.keySchema!)) {
          const json: JsonObject = new Map();
          for (const [k, e] of entries) json.set(String(k), this.defaultJson(schema.valueSchema!, e, asField));
          return json;
        }
        // As in Java: a list of [key, value] pairs, which is not a valid default for the entry records.
        return entries.map(([k, e]) => [
          this.defaultJson(schema.keySchema!, k, asField),
          this.defaultJson(schema.valueSchema!, e, asField),
        ]);
      }
      case "STRUCT": {
        if (!(v instanceof Struct)) fail();
        const json: JsonObject = new Map();
        for (const field of schema.fields) {
          const fieldJson = this.defaultJson(field.schema, (v as Struct).get(field), asField);
          // A union's default is its first member's (whatever that is), as in Java.
          if (isUnionSchema(schema)) return fieldJson;
          json.set(this.scrubName(field.name), fieldJson);
        }
        return json;
      }
    }
  }

  private stringKeys(keySchema: Schema): boolean {
    return keySchema.type === "STRING" && (!keySchema.optional || this.options.allowOptionalMapKeys);
  }

  /** [namespace, name] of a Connect schema name, or the next io.confluent.connect.avro.ConnectDefault<n>. */
  private nameOrDefault(ctx: FromConnectContext, name: string | null): [string | null, string] {
    if (name !== null) return this.splitName(name);
    const index = ctx.nextNameIndex();
    return [AVRO_NAMESPACE, DEFAULT_SCHEMA_NAME + (index > 1 ? index : "")];
  }

  private avroName(fullName: string): AvroName {
    const [space, name] = this.splitName(fullName);
    return avroName(space, name);
  }

  private splitName(fullName: string): [string | null, string] {
    if (fullName === "") return [null, fullName];
    // Java's split drops trailing empty strings.
    const parts = fullName.split(".");
    while (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    const scrubbed = parts.map((p) => this.scrubName(p));
    if (scrubbed.length <= 1) return [null, scrubbed[0]!];
    return [scrubbed.slice(0, -1).join("."), scrubbed[scrubbed.length - 1]!];
  }

  private scrubName(name: string): string {
    return this.options.scrubInvalidNames ? scrubName(name) : name;
  }

  private scrubFullName(name: string | null): string | null {
    if (name === null || !this.options.scrubInvalidNames) return name;
    const [space, simple] = this.splitName(name);
    return space === null ? simple : `${space}.${simple}`;
  }

  // ------------------------------------------------------------------------------------------
  // Connect value → Avro value

  /** The value avsc writes for `avro` (the schema fromConnectSchema gave, or one derived from it). */
  fromConnectData(schema: Schema | null, avro: AvroNode, value: unknown): unknown {
    if (schema === null) return value === null || value === undefined ? null : this.schemalessToAvro(avro, value);
    return this.toAvroValue(schema, avro, value);
  }

  private toAvroValue(schema: Schema, node: AvroNode, value: unknown): unknown {
    if (value === null || value === undefined) {
      if (!schema.optional) throw new DataException("Found null value for non-optional schema");
      return null;
    }
    if (node.type === "union") {
      if (isUnionSchema(schema)) return this.unionStructToAvro(schema, node, value);
      const branch = this.branches.get(node, schema);
      return { [branch.key]: this.toAvroValue(schema, branch.node, value) };
    }
    const v = logicalToAvro(schema, value);
    // Checked without closures or rest arrays: this runs for every value of every record.
    if (!AVRO_TYPES_OF[schema.type].includes(node.type))
      throw new DataException(`Cannot write Connect ${schema.type} as Avro ${node.type}`);
    switch (schema.type) {
      case "INT8":
      case "INT16":
      case "INT32":
        if (!acceptsPlain(schema.type, v)) throw invalidType(schema, v);
        return v;
      case "INT64":
        if (typeof v === "bigint") {
          if (BigInt.asIntN(64, v) !== v) throw invalidType(schema, v);
          return v;
        }
        if (!Number.isSafeInteger(v)) throw invalidType(schema, v);
        return BigInt(v as number);
      case "FLOAT32":
      case "FLOAT64":
        if (typeof v !== "number") throw invalidType(schema, v);
        return v;
      case "BOOLEAN":
        if (typeof v !== "boolean") throw invalidType(schema, v);
        return v;
      case "STRING":
        if (typeof v !== "string") throw invalidType(schema, v);
        return v;
      case "BYTES": {
        if (!(v instanceof Uint8Array)) throw invalidType(schema, v);
        let bytes = v as Uint8Array;
        if (node.type === "fixed" && isDecimalName(schema.name)) bytes = padToFixedSize(bytes, node.size);
        return asBuffer(bytes);
      }
      case "ARRAY": {
        if (!Array.isArray(v)) throw invalidType(schema, v);
        const items = (node as { items: AvroNode }).items;
        return (v as unknown[]).map((e) => this.toAvroValue(schema.valueSchema!, items, e));
      }
      case "MAP": {
        if (!(v instanceof Map) && !isPlainObject(v)) throw invalidType(schema, v);
        const entries = mapEntries(v as Map<unknown, unknown>);
        if (node.type === "map") {
          const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
          for (const [k, e] of entries) {
            if (typeof k !== "string") throw new DataException(`Invalid type for STRING: ${javaClassName(k)}`);
            out[k] = this.toAvroValue(schema.valueSchema!, node.values, e);
          }
          return out;
        }
        const [keyNode, valueNode] = mapEntryTypes((node as { items: AvroNode }).items);
        return [...entries].map(([k, e]) => ({
          [KEY_FIELD]: this.toAvroValue(schema.keySchema!, keyNode, k),
          [VALUE_FIELD]: this.toAvroValue(schema.valueSchema!, valueNode, e),
        }));
      }
      case "STRUCT": {
        if (!(v instanceof Struct)) throw invalidType(schema, v);
        if (v.schema !== schema && !v.schema.equals(schema)) throw new DataException("Mismatching struct schema");
        return this.structToAvro(v, node as RecordNode);
      }
    }
  }

  /**
   * How a struct of `schema` fills record `node`: per Avro field, the Connect field it takes its value
   * from, or (only with a writer schema other than the derived one: use.latest.version) its default.
   * Worked out once per pair.
   */
  private makeRecordPlan(schema: Schema, node: RecordNode): readonly RecordFieldPlan[] {
    const byAvroName = new Map<string, Field>();
    for (const field of schema.fields) byAvroName.set(this.scrubName(field.name), field);
    return node.fields.map((avroField): RecordFieldPlan => {
      const field = byAvroName.get(avroField.name);
      if (field) return { name: avroField.name, type: avroField.type, field };
      if (avroField.defaultValue === undefined)
        throw new DataException(
          `Avro field ${avroField.name} of ${node.name.full} has no Connect field and no default`,
        );
      return { name: avroField.name, type: avroField.type, field: null, defaultValue: avroField.defaultValue };
    });
  }

  private structToAvro(struct: Struct, node: RecordNode): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const { name, type, field, defaultValue } of this.recordPlans.get(node, struct.schema)) {
      if (field === null) {
        out[name] = jsonToAvro(type, defaultValue!);
        continue;
      }
      const fieldValue = this.options.ignoreDefaultForNullables ? struct.getWithoutDefault(field) : struct.get(field);
      out[name] = this.toAvroValue(field.schema, type, fieldValue);
    }
    return out;
  }

  /** A union held as a Connect struct: the first non-null field is the branch written. */
  private unionStructToAvro(schema: Schema, node: Extract<AvroNode, { type: "union" }>, value: unknown): unknown {
    if (!(value instanceof Struct) || !value.schema.equals(schema))
      throw new DataException("Mismatching struct schema");
    const members = node.branches.map((b, i) => ({ branch: b, index: i })).filter((m) => m.branch.type !== "null");
    for (const [k, field] of schema.fields.entries()) {
      const member = this.options.ignoreDefaultForNullables ? value.getWithoutDefault(field.name) : value.get(field);
      if (member === null || member === undefined) continue;
      const match = members.find((m) => this.unionMemberFieldName(m.branch, m.index) === field.name) ?? members[k];
      if (!match) throw new DataException(`No Avro union branch for union field ${field.name}`);
      return { [branchKey(match.branch)]: this.toAvroValue(field.schema, match.branch, member) };
    }
    if (!schema.optional) throw new DataException("Found null value for non-optional schema");
    return null;
  }

  /** A schemaless value in the Anything envelope: one field set, the rest null. */
  private schemalessToAvro(anythingNode: AvroNode, value: unknown): Record<string, unknown> {
    const rec = anythingNode as RecordNode;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const f of ANYTHING_FIELDS) out[f] = null;
    if (value === null || value === undefined) return out;
    const set = (field: (typeof ANYTHING_FIELDS)[number], v: unknown): Record<string, unknown> => {
      const branch = (rec.fields.find((f) => f.name === field)!.type as Extract<AvroNode, { type: "union" }>)
        .branches[1]!;
      out[field] = { [branchKey(branch)]: v };
      return out;
    };
    // In schemaless data a JS number is a Java Double and a bigint a Long (see data/values.ts).
    switch (typeof value) {
      case "boolean":
        return set("boolean", value);
      case "number":
        return set("double", value);
      case "bigint":
        if (BigInt.asIntN(64, value) !== value) break;
        return set("long", value);
      case "string":
        return set("string", value);
      case "object":
        if (Array.isArray(value))
          return set(
            "array",
            value.map((e) => this.schemalessToAvro(anythingNode, e)),
          );
        if (value instanceof Map || isPlainObject(value)) {
          return set(
            "map",
            [...mapEntries(value as Map<unknown, unknown>)].map(([k, e]) => ({
              [KEY_FIELD]: this.schemalessToAvro(anythingNode, k),
              [VALUE_FIELD]: this.schemalessToAvro(anythingNode, e),
            })),
          );
        }
        break;
    }
    throw new DataException(`Unknown Java type for schemaless data: ${javaClassName(value)}`);
  }

  // ------------------------------------------------------------------------------------------
  // Avro schema → Connect schema

  /**
   * The Connect schema of an Avro schema (null for the schemaless Anything record). `version` is
   * used when the schema has no connect.version (Confluent passes the subject version).
   */
  toConnectSchema(avro: AvroNode, version: number | null = null): Schema | null {
    if (avro.type === "record" && avro.name.full === AVRO_TYPE_ANYTHING) return null;
    let byVersion = this.toConnectCache.get(avro);
    const key = version ?? -1;
    const cached = byVersion?.get(key);
    if (cached !== undefined) return cached;
    const schema = this.toConnectSchemaAt(avro, false, undefined, version, { inProgress: new Set() });
    if (!byVersion) this.toConnectCache.set(avro, (byVersion = new Map()));
    byVersion.set(key, schema);
    return schema;
  }

  private toConnectSchemaAt(
    node: AvroNode,
    forceOptional: boolean,
    fieldDefault: JsonValue | undefined,
    version: number | null,
    ctx: ToConnectContext,
  ): Schema {
    const o = this.options;
    const connectType = stringProp(node, CONNECT_TYPE_PROP);
    const logicalType = stringProp(node, "logicalType")?.toLowerCase() ?? null;
    let builder: SchemaBuilder;
    // What a logical type's builder already set (Java reads them back from the builder).
    let presetName: string | null = null;
    let presetVersion: number | null = null;
    let recordInProgress: RecordNode | null = null;
    switch (node.type) {
      case "boolean":
        builder = SchemaBuilder.bool();
        break;
      case "bytes":
      case "fixed":
        if (logicalType === "decimal") {
          const scale = node.props.get("scale");
          builder = Decimal.builder(scale instanceof JsonNumber ? javaIntValue(scale) : 0);
          presetName = Decimal.LOGICAL_NAME;
          presetVersion = 1;
          const precision = node.props.get("precision");
          if (precision !== undefined) {
            if (!(precision instanceof JsonNumber))
              throw new DataException(
                "precision property must be a JSON Integer. https://avro.apache.org/docs/1.9.1/spec.html#Decimal",
              );
            // Kept as a parameter only when it is not the default.
            const p = javaIntValue(precision);
            if (p !== CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT)
              builder.parameter(CONNECT_AVRO_DECIMAL_PRECISION_PROP, String(p));
          }
        } else builder = SchemaBuilder.bytes();
        if (node.type === "fixed") builder.parameter(CONNECT_AVRO_FIXED_SIZE_PROP, String(node.size));
        break;
      case "double":
        builder = SchemaBuilder.float64();
        break;
      case "float":
        builder = SchemaBuilder.float32();
        break;
      case "int":
        if (connectType === null && logicalType === null) builder = SchemaBuilder.int32();
        else if (logicalType !== null) {
          if (logicalType === "date")
            [builder, presetName, presetVersion] = [ConnectDate.builder(), ConnectDate.LOGICAL_NAME, 1];
          else if (logicalType === "time-millis")
            [builder, presetName, presetVersion] = [Time.builder(), Time.LOGICAL_NAME, 1];
          else builder = SchemaBuilder.int32();
        } else if (connectType === "int8") builder = SchemaBuilder.int8();
        else if (connectType === "int16") builder = SchemaBuilder.int16();
        else throw new DataException("Connect type annotation for Avro int field is null");
        break;
      case "long":
        if (logicalType === "timestamp-millis")
          [builder, presetName, presetVersion] = [Timestamp.builder(), Timestamp.LOGICAL_NAME, 1];
        else builder = SchemaBuilder.int64();
        break;
      case "string":
        builder = SchemaBuilder.string();
        break;
      case "array": {
        const items = node.items;
        if (isMapEntry(items)) {
          const [keyNode, valueNode] = mapEntryTypes(items);
          builder = SchemaBuilder.map(this.toConnectSchemaOrFail(keyNode), this.toConnectSchemaOrFail(valueNode));
        } else builder = SchemaBuilder.array(this.toConnectSchemaAt(items, false, undefined, null, ctx));
        break;
      }
      case "map":
        builder = SchemaBuilder.map(
          Schema.STRING_SCHEMA,
          this.toConnectSchemaAt(node.values, false, undefined, null, ctx),
        );
        break;
      case "record": {
        if (ctx.inProgress.has(node))
          throw new DataException(`Recursive Avro schema ${node.name.full} cannot be represented as a Connect schema`);
        ctx.inProgress.add(node);
        recordInProgress = node;
        builder = SchemaBuilder.struct();
        if (!o.discardTypeDocDefault && o.connectMetaData && node.doc !== null)
          builder.parameter(AVRO_RECORD_DOC_PROP, node.doc);
        for (const field of node.fields) {
          if (!o.discardTypeDocDefault && o.connectMetaData && field.doc !== null)
            builder.parameter(AVRO_FIELD_DOC_PREFIX_PROP + field.name, field.doc);
          let fieldSchema = this.toConnectSchemaAt(field.type, false, field.defaultValue, null, ctx);
          const fieldParams = field.props.get(CONNECT_PARAMETERS_PROP);
          if (o.connectMetaData && isJsonObject(fieldParams))
            fieldSchema = withFieldLevelParams(fieldSchema, fieldParams);
          builder.field(field.name, fieldSchema);
        }
        break;
      }
      case "enum": {
        // Enums become strings; the symbols are kept as parameters.
        builder = SchemaBuilder.string();
        if (o.connectMetaData) {
          if (node.doc !== null)
            builder.parameter(
              o.discardTypeDocDefault ? CONNECT_ENUM_DOC_PROP : AVRO_ENUM_DOC_PREFIX_PROP + node.name.name,
              node.doc,
            );
          if (!o.discardTypeDocDefault && node.enumDefault !== null)
            builder.parameter(AVRO_ENUM_DEFAULT_PREFIX_PROP + node.name.name, node.enumDefault);
        }
        const paramName = o.generalizedSumTypeSupport ? GENERALIZED_TYPE_ENUM : AVRO_TYPE_ENUM;
        builder.parameter(paramName, node.name.full);
        node.symbols.forEach((symbol, i) =>
          builder.parameter(`${paramName}.${symbol}`, o.generalizedSumTypeSupport ? String(i) : symbol),
        );
        break;
      }
      case "union": {
        const nonNull = node.branches.filter((b) => b.type !== "null");
        if (node.branches.length === 1 && o.flattenSingletonUnions)
          return this.toConnectSchemaAt(node.branches[0]!, false, undefined, null, ctx);
        // [null, T] or [T, null]: an optional T. The field default is dropped here, as in Java (connect.default keeps it).
        if (node.branches.length === 2 && nonNull.length === 1)
          return this.toConnectSchemaAt(nonNull[0]!, true, undefined, null, ctx);
        const unionName = o.generalizedSumTypeSupport
          ? GENERALIZED_TYPE_UNION_PREFIX + this.unionIndex++
          : AVRO_TYPE_UNION;
        builder = SchemaBuilder.struct().name(unionName);
        presetName = unionName;
        if (o.generalizedSumTypeSupport) builder.parameter(GENERALIZED_TYPE_UNION, unionName);
        const names = new Set<string>();
        node.branches.forEach((member, i) => {
          if (member.type === "null") {
            if (!builder.isOptional) builder.optional();
            return;
          }
          const fieldName = this.unionMemberFieldName(member, i);
          if (names.has(fieldName))
            throw new DataException("Multiple union schemas map to the Connect union field name");
          names.add(fieldName);
          builder.field(fieldName, this.toConnectSchemaAt(member, true, undefined, null, ctx));
        });
        break;
      }
      case "null":
        throw new DataException("Standalone null schemas are not supported by this converter");
    }

    if (o.discardTypeDocDefault) {
      const doc = stringProp(node, CONNECT_DOC_PROP) ?? ("doc" in node ? node.doc : null);
      if (doc !== null) builder.doc(doc);
      if (o.connectMetaData && "doc" in node && node.doc !== null) builder.parameter(CONNECT_RECORD_DOC_PROP, node.doc);
    } else {
      const doc = stringProp(node, CONNECT_DOC_PROP);
      if (o.connectMetaData && doc !== null) builder.doc(doc);
    }

    // A connect.version takes priority over the registry's version.
    let versionInt = -1;
    const versionNode = node.props.get(CONNECT_VERSION_PROP);
    if (versionNode !== undefined) {
      if (!(versionNode instanceof JsonNumber))
        throw new DataException(`Invalid Connect version found: ${writeJson(versionNode)}`);
      versionInt = javaIntValue(versionNode);
    } else if (version !== null) versionInt = version;
    if (versionInt >= 0) {
      if (presetVersion !== null) {
        if (versionInt !== presetVersion)
          throw new DataException(
            `Mismatched versions: version already added to SchemaBuilder (${presetVersion}) differs from version in source schema (${versionInt})`,
          );
      } else builder.version(versionInt);
    }

    const parameters = node.props.get(CONNECT_PARAMETERS_PROP);
    if (o.connectMetaData && parameters !== undefined) {
      if (!isJsonObject(parameters))
        throw new DataException(`Expected JSON object for schema parameters but found: ${writeJson(parameters)}`);
      for (const [k, v] of parameters) {
        if (typeof v !== "string")
          throw new DataException(`Expected schema parameter values to be strings but found: ${writeJson(v)}`);
        builder.parameter(k, v);
      }
    }
    for (const [k, v] of node.props)
      if (k.startsWith("avro")) builder.parameter(k, typeof v === "string" ? v : writeJson(v));

    const connectDefault = node.props.get(CONNECT_DEFAULT_VALUE_PROP);
    let defaultJson = fieldDefault;
    if (defaultJson === undefined) defaultJson = connectDefault;
    else if (!o.discardTypeDocDefault && o.connectMetaData && connectDefault === undefined)
      builder.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP, "true");

    const nameJson = node.props.get(CONNECT_NAME_PROP);
    let name: string | null = null;
    if (nameJson !== undefined) {
      if (typeof nameJson !== "string") throw new DataException(`Invalid schema name: ${writeJson(nameJson)}`);
      name = nameJson;
    } else if (node.type === "record" || node.type === "enum") name = node.name.full;
    else if (node.type === "fixed" && presetName !== Decimal.LOGICAL_NAME) name = node.name.full;
    if (name !== null && !name.startsWith(DEFAULT_SCHEMA_FULL_NAME)) {
      if (presetName !== null) {
        if (name !== presetName)
          throw new DataException(
            `Mismatched names: name already added to SchemaBuilder (${presetName}) differs from name in source schema (${name})`,
          );
      } else builder.name(name);
    }
    if (forceOptional && !builder.isOptional) builder.optional();
    if (recordInProgress) ctx.inProgress.delete(recordInProgress);

    const schema = builder.build();
    if (defaultJson === undefined || defaultJson === null) return schema;
    try {
      const value = this.defaultFromAvro(schema, node, defaultJson);
      return value === null ? schema : withDefault(schema, value);
    } catch {
      return schema; // Java logs "Ignoring invalid default" and goes on without it
    }
  }

  private toConnectSchemaOrFail(node: AvroNode): Schema {
    const schema = this.toConnectSchema(node);
    if (schema === null) throw new DataException("Schemaless map keys and values are not supported");
    return schema;
  }

  /** Field name of a union member in the Connect struct standing for the union. */
  private unionMemberFieldName(member: AvroNode, index: number): string {
    if (this.options.generalizedSumTypeSupport) return GENERALIZED_TYPE_UNION_FIELD_PREFIX + index;
    if (member.type === "record" || member.type === "enum" || member.type === "fixed")
      return this.options.enhancedSchemaSupport ? member.name.full : member.name.name;
    return member.type;
  }

  /** An Avro default (field default or connect.default) as a Connect value of `schema`; throws when it does not fit. */
  private defaultFromAvro(schema: Schema, node: AvroNode, json: JsonValue): unknown {
    if (json === null) return null;
    return logicalToConnect(schema, this.defaultFromAvroRaw(schema, node, json));
  }

  private defaultFromAvroRaw(schema: Schema, node: AvroNode, json: JsonValue): unknown {
    const fail = (): never => {
      throw new DataException(`Invalid default ${writeJson(json)} for Avro ${node.type}`);
    };
    switch (node.type) {
      case "int": {
        if (!(json instanceof JsonNumber)) return fail();
        const n = javaIntValue(json);
        if (schema.type === "INT8") return (n << 24) >> 24;
        if (schema.type === "INT16") return (n << 16) >> 16;
        return n;
      }
      case "long":
        if (!(json instanceof JsonNumber)) return fail();
        return json.integer !== null ? BigInt.asIntN(64, json.integer) : BigInt(Math.trunc(json.value));
      case "float":
        return json instanceof JsonNumber ? Math.fround(json.value) : fail();
      case "double":
        return json instanceof JsonNumber ? json.value : fail();
      case "boolean":
        return typeof json === "boolean" ? json : fail();
      case "string":
      case "enum":
        return typeof json === "string" ? json : fail();
      case "bytes":
      case "fixed":
        return typeof json === "string" ? fromLatin1(json) : fail();
      case "array":
        if (!Array.isArray(json) || schema.type !== "ARRAY") return fail();
        return json.map((e) => this.defaultFromAvro(schema.valueSchema!, node.items, e));
      case "map": {
        if (!isJsonObject(json)) return fail();
        const out = new Map<string, unknown>();
        for (const [k, v] of json) out.set(k, this.defaultFromAvro(schema.valueSchema!, node.values, v));
        return out;
      }
      case "record": {
        if (!isJsonObject(json) || schema.type !== "STRUCT") return fail();
        const struct = new Struct(schema);
        for (const avroField of node.fields) {
          const field = schema.field(avroField.name);
          if (!field) return fail();
          const v = json.get(avroField.name);
          struct.put(field, v === undefined ? null : this.defaultFromAvro(field.schema, avroField.type, v));
        }
        return struct;
      }
      case "union": {
        // The first member that reads the JSON (Avro 1.12 accepts a default for any branch).
        for (const [i, member] of node.branches.entries()) {
          if (member.type === "null") continue;
          try {
            if (isUnionSchema(schema)) {
              const field = schema.field(this.unionMemberFieldName(member, i));
              if (!field) continue;
              return new Struct(schema).put(field, this.defaultFromAvro(field.schema, member, json));
            }
            return this.defaultFromAvroRaw(schema, member, json);
          } catch {}
        }
        return fail();
      }
      case "null":
        return null;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Avro value → Connect value

  /** Connect schema and value of an Avro value (as avsc read it, unions wrapped). */
  toConnectData(avro: AvroNode, value: unknown, version: number | null = null): ConnectData {
    const schema = this.toConnectSchema(avro, version);
    if (schema === null) return { schema: null, value: schemalessToConnect(value) };
    return { schema, value: this.toConnectValue(schema, avro, value) };
  }

  /** Per field of `schema`, the field of Avro record `node` it is read from; once per pair. */
  private makeReadPlan(schema: Schema, node: RecordNode): readonly { field: Field; name: string; type: AvroNode }[] {
    const avroFields = fieldsByName(node);
    return schema.fields.map((field) => {
      const name = this.scrubName(field.name);
      const avroField = avroFields.get(name);
      if (!avroField) throw new DataException(`Avro record ${node.name.full} has no field ${name}`);
      return { field, name, type: avroField.type };
    });
  }

  /** A value read with `avro` as the Connect value of `schema` (which toConnectSchema derived from it). */
  toConnectValue(schema: Schema, node: AvroNode, value: unknown): unknown {
    if (value === null || value === undefined) {
      if (!schema.optional) throw new DataException("Found null value for non-optional schema");
      return null;
    }
    if (node.type === "union") {
      const key = unionKey(value);
      const inner = (value as Record<string, unknown>)[key];
      const index = branchIndexes(node).get(key) ?? -1;
      const member = node.branches[index];
      if (!member) throw new DataException(`Avro union has no branch ${key}`);
      if (isUnionSchema(schema) && schema.type === "STRUCT") {
        const field = schema.field(this.unionMemberFieldName(member, index));
        if (!field) throw new DataException("Did not find matching union field for data");
        return new Struct(schema).put(field, this.toConnectValue(field.schema, member, inner));
      }
      return this.toConnectValue(schema, member, inner);
    }
    let converted: unknown;
    switch (schema.type) {
      case "INT8":
        converted = ((value as number) << 24) >> 24;
        break;
      case "INT16":
        converted = ((value as number) << 16) >> 16;
        break;
      case "INT64":
        converted = typeof value === "bigint" ? value : BigInt(value as number);
        break;
      case "BYTES":
        if (!(value instanceof Uint8Array))
          throw new DataException(
            `Invalid class for bytes type, expecting byte[] or ByteBuffer but found ${javaClassName(value)}`,
          );
        // A copy: avsc returns views into the record's bytes.
        converted = new Uint8Array(value);
        break;
      case "ARRAY":
        if (node.type !== "array") throw new DataException(`Cannot read Avro ${node.type} as Connect ARRAY`);
        converted = (value as unknown[]).map((e) => this.toConnectValue(schema.valueSchema!, node.items, e));
        break;
      case "MAP": {
        const out = new Map<unknown, unknown>();
        if (node.type === "map") {
          for (const [k, v] of Object.entries(value as Record<string, unknown>))
            out.set(k, this.toConnectValue(schema.valueSchema!, node.values, v));
        } else if (node.type === "array") {
          const [keyNode, valueNode] = mapEntryTypes(node.items);
          for (const e of value as Record<string, unknown>[]) {
            out.set(
              this.toConnectValue(schema.keySchema!, keyNode, e[KEY_FIELD]),
              this.toConnectValue(schema.valueSchema!, valueNode, e[VALUE_FIELD]),
            );
          }
        } else throw new DataException(`Cannot read Avro ${node.type} as Connect MAP`);
        converted = out;
        break;
      }
      case "STRUCT": {
        if (node.type !== "record") throw new DataException(`Cannot read Avro ${node.type} as Connect STRUCT`);
        const rec = value as Record<string, unknown>;
        const struct = new Struct(schema);
        for (const { field, name, type } of this.readPlans.get(node, schema))
          struct.put(field, this.toConnectValue(field.schema, type, rec[name]));
        converted = struct;
        break;
      }
      default:
        converted = value;
    }
    return logicalToConnect(schema, converted);
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function primitive(type: PrimitiveType): AvroNode {
  return { type, props: new Map(), logicalType: null };
}

function record(name: AvroName, doc: string | null): RecordNode {
  return { type: "record", isError: false, name, doc, fields: [], aliases: [], props: new Map(), logicalType: null };
}

function avroName(space: string | null, name: string): AvroName {
  return { name, space, full: space === null ? name : `${space}.${name}` };
}

/** Optional → a union with null first, or last when there is a default (Avro defaults match the first branch). */
function maybeOptional(schema: Schema, base: AvroNode): AvroNode {
  if (!schema.optional) return base;
  const branches = schema.defaultValue !== null ? [base, primitive("null")] : [primitive("null"), base];
  return { type: "union", branches, props: new Map(), logicalType: null };
}

/** AvroData.nonOptional: the same schema, required. */
function nonOptional(schema: Schema): Schema {
  return schema.optional ? copySchema(schema, { optional: false }) : schema;
}

/** The schema with a default, set without SchemaBuilder (which rejects a struct default of the schema itself). */
function withDefault(schema: Schema, value: unknown): Schema {
  if (!(value instanceof Struct)) validateValue(schema, value);
  return copySchema(schema, { defaultValue: value });
}

/** Field-level connect.parameters (written where a named type is only referenced) override the type's. */
function withFieldLevelParams(original: Schema, fieldParams: JsonObject): Schema {
  const params = new Map(original.parameters ?? []);
  let same = true;
  for (const [k, v] of fieldParams) {
    const text = typeof v === "string" ? v : writeJson(v);
    if (params.get(k) !== text) same = false;
    params.set(k, text);
  }
  if (same) return original;
  return copySchema(original, { parameters: params });
}

function isUnionSchema(schema: Schema): boolean {
  return schema.name === AVRO_TYPE_UNION || (schema.parameters?.has(GENERALIZED_TYPE_UNION) ?? false);
}

function isFixedSchema(schema: Schema): boolean {
  return (
    schema.type === "BYTES" && schema.name !== null && (schema.parameters?.has(CONNECT_AVRO_FIXED_SIZE_PROP) ?? false)
  );
}

function isDecimalName(name: string | null): boolean {
  return name !== null && name.toLowerCase() === Decimal.LOGICAL_NAME.toLowerCase();
}

function isNamedOrHasNamedBranch(node: AvroNode): boolean {
  const named = (n: AvroNode) => n.type === "record" || n.type === "enum" || n.type === "fixed";
  return named(node) || (node.type === "union" && node.branches.some(named));
}

/** Whether an array's items are the key/value records standing for a map with non-string keys. */
function isMapEntry(node: AvroNode): boolean {
  if (node.type !== "record") return false;
  return (
    (node.name.space === AVRO_NAMESPACE && node.name.name === MAP_ENTRY_TYPE_NAME) ||
    node.props.get(CONNECT_INTERNAL_TYPE_NAME) === MAP_ENTRY_TYPE_NAME
  );
}

/** Key and value types of the records standing for map entries (fields in either order, as Java looks them up by name). */
function mapEntryTypes(node: AvroNode): [AvroNode, AvroNode] {
  const key = node.type === "record" ? node.fields.find((f) => f.name === KEY_FIELD) : undefined;
  const value = node.type === "record" ? node.fields.find((f) => f.name === VALUE_FIELD) : undefined;
  if (node.type !== "record" || node.fields.length !== 2 || !key || !value) {
    throw new DataException(
      "Found map encoded as array of key-value pairs, but array elements do not match the expected format.",
    );
  }
  return [key.type, value.type];
}

const fieldMaps = new WeakMap<RecordNode, Map<string, FieldNode>>();

function fieldsByName(node: RecordNode): Map<string, FieldNode> {
  let map = fieldMaps.get(node);
  if (!map) fieldMaps.set(node, (map = new Map(node.fields.map((f) => [f.name, f]))));
  return map;
}

function stringProp(node: AvroNode, name: string): string | null {
  const v = node.props.get(name);
  return typeof v === "string" ? v : null;
}

/** The key avsc uses for a union branch when unions are wrapped. */
function branchKey(node: AvroNode): string {
  return node.type === "record" || node.type === "enum" || node.type === "fixed" ? node.name.full : node.type;
}

/** The branch key of a wrapped union value (an object with that one key), without listing its keys. */
function unionKey(value: unknown): string {
  if (typeof value === "object" && value !== null) {
    let found: string | undefined;
    for (const key in value) {
      // avsc's wrapped values inherit enumerable methods (unwrap, unwrapped).
      if (!Object.hasOwn(value, key)) continue;
      if (found !== undefined) {
        found = undefined;
        break;
      }
      found = key;
    }
    if (found !== undefined) return found;
  }
  throw new DataException("Invalid Avro union value");
}

const unionIndexes = new WeakMap<AvroNode, Map<string, number>>();

/** Each branch's index in a union, by its key in a wrapped union value. */
function branchIndexes(union: Extract<AvroNode, { type: "union" }>): Map<string, number> {
  let indexes = unionIndexes.get(union);
  if (!indexes) {
    indexes = new Map();
    for (const [i, branch] of union.branches.entries())
      if (!indexes.has(branchKey(branch))) indexes.set(branchKey(branch), i);
    unionIndexes.set(union, indexes);
  }
  return indexes;
}

function unwrapUnion(value: unknown): [string, unknown] {
  if (typeof value !== "object" || value === null) throw new DataException("Invalid Avro union value");
  const keys = Object.keys(value);
  if (keys.length !== 1) throw new DataException("Invalid Avro union value");
  return [keys[0]!, (value as Record<string, unknown>)[keys[0]!]];
}

const AVRO_TYPES_OF: Readonly<Record<Schema["type"], readonly AvroNode["type"][]>> = {
  INT8: ["int"],
  INT16: ["int"],
  INT32: ["int"],
  INT64: ["long"],
  FLOAT32: ["float"],
  FLOAT64: ["double"],
  BOOLEAN: ["boolean"],
  STRING: ["string", "enum"],
  BYTES: ["bytes", "fixed"],
  ARRAY: ["array"],
  MAP: ["map", "array"],
  STRUCT: ["record"],
};

/** Values worked out once per (Avro node, Connect schema) pair, held as long as both are. */
class PairCache<N extends AvroNode, V> {
  private readonly byNode = new WeakMap<N, WeakMap<Schema, V>>();

  /** `make` is given once, not per lookup: lookups are per value of every record. */
  constructor(private readonly make: (node: N, schema: Schema) => V) {}

  get(node: N, schema: Schema): V {
    let bySchema = this.byNode.get(node);
    if (!bySchema) this.byNode.set(node, (bySchema = new WeakMap()));
    let value = bySchema.get(schema);
    if (value === undefined) bySchema.set(schema, (value = this.make(node, schema)));
    return value;
  }
}

/** One Avro field of a record as a struct fills it (AvroData.recordPlan). */
interface RecordFieldPlan {
  readonly name: string;
  readonly type: AvroNode;
  /** Null: no Connect field of that name; the field's default is written. */
  readonly field: Field | null;
  readonly defaultValue?: JsonValue;
}

/** Connect's words for a value that is not of its schema's type. */
function invalidType(schema: Schema, value: unknown): DataException {
  return new DataException(`Invalid type for ${schema.type}: ${javaClassName(value)}`);
}

/** The branch of an optional's union that holds the value: the named one of that name, else the first of the right type. */
function branchFor(schema: Schema, union: Extract<AvroNode, { type: "union" }>, scrubbedName: string | null): AvroNode {
  const members = union.branches.filter((b) => b.type !== "null");
  if (members.length === 1) return members[0]!;
  const types = AVRO_TYPES_OF[schema.type];
  const candidates = members.filter((b) => types.includes(b.type));
  const named = candidates.find((b) => scrubbedName !== null && branchKey(b) === scrubbedName);
  const found = named ?? candidates[0];
  if (!found) throw new DataException(`No branch of the Avro union can hold Connect ${schema.type}`);
  return found;
}

/** Connect logical value → the underlying value (TO_AVRO_LOGICAL_CONVERTERS), by exact schema name. */
function logicalToAvro(schema: Schema, value: unknown): unknown {
  switch (schema.name) {
    case Decimal.LOGICAL_NAME:
      if (!(value instanceof BigDecimal))
        throw new DataException(`Invalid type for Decimal, expected BigDecimal but was ${javaClassName(value)}`);
      return Decimal.fromLogical(schema, value);
    case ConnectDate.LOGICAL_NAME:
      if (!(value instanceof Date))
        throw new DataException(`Invalid type for Date, expected Date but was ${javaClassName(value)}`);
      return ConnectDate.fromLogical(schema, value);
    case Time.LOGICAL_NAME:
      if (!(value instanceof Date))
        throw new DataException(`Invalid type for Time, expected Date but was ${javaClassName(value)}`);
      return Time.fromLogical(schema, value);
    case Timestamp.LOGICAL_NAME:
      if (!(value instanceof Date))
        throw new DataException(`Invalid type for Timestamp, expected Date but was ${javaClassName(value)}`);
      return Timestamp.fromLogical(schema, value);
    default:
      return value;
  }
}

/** The underlying value → Connect's logical value (TO_CONNECT_LOGICAL_CONVERTERS). */
function logicalToConnect(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (schema.name) {
    case Decimal.LOGICAL_NAME:
      if (!(value instanceof Uint8Array))
        throw new DataException(
          `Invalid type for Decimal, underlying representation should be bytes but was ${javaClassName(value)}`,
        );
      return Decimal.toLogical(schema, value);
    case ConnectDate.LOGICAL_NAME:
      if (typeof value !== "number")
        throw new DataException(
          `Invalid type for Date, underlying representation should be int32 but was ${javaClassName(value)}`,
        );
      return ConnectDate.toLogical(schema, value);
    case Time.LOGICAL_NAME:
      if (typeof value !== "number")
        throw new DataException(
          `Invalid type for Time, underlying representation should be int32 but was ${javaClassName(value)}`,
        );
      return Time.toLogical(schema, value);
    case Timestamp.LOGICAL_NAME:
      if (typeof value !== "bigint" && typeof value !== "number")
        throw new DataException(
          `Invalid type for Timestamp, underlying representation should be int64 but was ${javaClassName(value)}`,
        );
      return Timestamp.toLogical(schema, value);
    default:
      return value;
  }
}

/** A schemaless (Anything) value back as plain JS: numbers, bigint longs, strings, arrays, Maps. */
function schemalessToConnect(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object") throw new DataException("Invalid Avro data for schemaless Connect data");
  const rec = value as Record<string, unknown>;
  for (const field of ANYTHING_FIELDS) {
    const wrapped = rec[field];
    if (wrapped === null || wrapped === undefined) continue;
    const [, v] = unwrapUnion(wrapped);
    switch (field) {
      case "array":
        return (v as unknown[]).map(schemalessToConnect);
      case "map":
        return new Map(
          (v as Record<string, unknown>[]).map((e) => [
            schemalessToConnect(e[KEY_FIELD]),
            schemalessToConnect(e[VALUE_FIELD]),
          ]),
        );
      case "bytes":
        return new Uint8Array(v as Uint8Array);
      default:
        return v;
    }
  }
  return null;
}

/** An Avro JSON default as the value avsc writes (for Avro fields the Connect data lacks). */
function jsonToAvro(node: AvroNode, json: JsonValue): unknown {
  switch (node.type) {
    case "union":
      for (const member of node.branches) {
        if (member.type === "null") {
          if (json === null) return null;
          continue;
        }
        try {
          return { [branchKey(member)]: jsonToAvro(member, json) };
        } catch {}
      }
      break;
    case "null":
      if (json === null) return null;
      break;
    case "int":
    case "float":
    case "double":
      if (json instanceof JsonNumber) return json.value;
      break;
    case "long":
      if (json instanceof JsonNumber) return json.integer ?? BigInt(Math.trunc(json.value));
      break;
    case "boolean":
      if (typeof json === "boolean") return json;
      break;
    case "string":
    case "enum":
      if (typeof json === "string") return json;
      break;
    case "bytes":
    case "fixed":
      if (typeof json === "string") return asBuffer(fromLatin1(json));
      break;
    case "array":
      if (Array.isArray(json)) return json.map((e) => jsonToAvro(node.items, e));
      break;
    case "map":
      if (isJsonObject(json)) return Object.fromEntries([...json].map(([k, v]) => [k, jsonToAvro(node.values, v)]));
      break;
    case "record":
      if (isJsonObject(json)) {
        const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
        for (const f of node.fields) {
          const v = json.has(f.name) ? json.get(f.name)! : f.defaultValue;
          if (v === undefined) throw new DataException(`No default for Avro field ${f.name}`);
          out[f.name] = jsonToAvro(f.type, v);
        }
        return out;
      }
      break;
  }
  throw new DataException(`Invalid Avro default ${writeJson(json)} for ${node.type}`);
}

/** AvroData.doScrubName: URL-encode, then every character outside [A-Za-z0-9_] becomes `_`; a leading digit gets an `x`. */
export function scrubName(name: string): string {
  if (name === "") return name;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return name;
  // java.net.URLEncoder: space → '+', unreserved [A-Za-z0-9.*_-] kept, the rest %XX of UTF-8.
  let encoded = "";
  for (const byte of new TextEncoder().encode(name)) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9.*_-]/.test(ch)) encoded += ch;
    else if (ch === " ") encoded += "+";
    else encoded += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  if (/^[0-9]/.test(encoded)) encoded = "x" + encoded;
  return encoded.replace(/[^A-Za-z0-9_]/g, "_");
}

/** Avro fixed values have exactly `size` bytes: a decimal's minimal two's complement is sign-extended. */
function padToFixedSize(unscaled: Uint8Array, size: number): Uint8Array {
  if (unscaled.length === size) return unscaled;
  if (unscaled.length > size)
    throw new DataException(`Unscaled value byte array length ${unscaled.length} is greater than fixed size ${size}`);
  const padded = new Uint8Array(size).fill(unscaled.length > 0 && unscaled[0]! >= 0x80 ? 0xff : 0);
  padded.set(unscaled, size - unscaled.length);
  return padded;
}

/** Bytes as an ISO-8859-1 string: how Avro writes bytes defaults in JSON. */
function latin1(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(b);
  return out;
}

function fromLatin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/** Integer.parseInt; a missing or malformed value is a DataException (Java throws NumberFormatException). */
function parseJavaInt(text: string | undefined): number {
  if (text === undefined) throw new DataException(`Invalid integer parameter: ${text}`);
  try {
    return Number(javaParseInteger(text, 32));
  } catch {
    throw new DataException(`Invalid integer parameter: ${text}`);
  }
}

/** Number.intValue() of a JSON number. */
function javaIntValue(n: JsonNumber): number {
  if (n.integer !== null) return Number(BigInt.asIntN(32, n.integer));
  return Math.trunc(n.value) | 0;
}
