// Connect data ↔ JSON Schema, mapped as Confluent's JsonSchemaData (io.confluent.connect.json) maps
// it: Connect types ride on `connect.type` (int8…float64, bytes, map), struct fields keep their
// position in `connect.index`, names become `title`, optional is `oneOf: [null, T]`. The schema text
// keeps the key order Everit's printer (Confluent's JsonSchema.toString) gives, hash-ordered
// keywords included, so Sluice and a JVM worker register the same schema. Values are JSON text
// written as Jackson writes it, and read from the registry's own JSON reader (exact numbers).
import { commonDataSettings, decimalFormat, flattenSingletonUnions } from "./data-config.ts";
import type { ParsedSettings, Setting } from "../../platform/settings.ts";
import { jsonSchemaFormat, type JsonSchemaParsed } from "../../schema/jsonschema/index.ts";
import { JavaHashKeys } from "../../jvm/hash-order.ts";
import { isJObject, JNumber, readTree, writeJson, type JObject, type JValue } from "../../schema/jsonschema/json.ts";
import { propertyOrder, type CombinedNode, type ObjectNode, type SchemaNode } from "../../schema/jsonschema/model.ts";
import { BigDecimal } from "../../jvm/big-decimal.ts";
import {
  DataException,
  isPlainObject,
  javaClassName,
  javaDoubleToString,
  javaFloatToString,
  ConnectDate,
  Decimal,
  Time,
  Timestamp,
  Schema,
  SchemaBuilder,
  acceptsPlain,
  copySchema,
  mapEntries,
  validateValue,
  Struct,
} from "../api/data/index.ts";
import { DerivedSchemas } from "./derived-schemas.ts";
import { base64, writeJsonTree, type JsonTree } from "../../jvm/json-text.ts";
import { ownEntry } from "../../platform/own.ts";

const NAMESPACE = "io.confluent.connect.json";
const KEY_FIELD = "key";
const VALUE_FIELD = "value";
const CONNECT_TYPE_PROP = "connect.type";
const CONNECT_VERSION_PROP = "connect.version";
const CONNECT_PARAMETERS_PROP = "connect.parameters";
const CONNECT_INDEX_PROP = "connect.index";
const JSON_TYPE_ENUM = `${NAMESPACE}.Enum`;
const JSON_TYPE_ONE_OF = `${NAMESPACE}.OneOf`;
const GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union";
const GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum";
const GENERALIZED_TYPE_UNION_PREFIX = "connect_union_";
const GENERALIZED_TYPE_UNION_FIELD_PREFIX = "connect_union_field_";
const NULL_MARKER = "<NULL>";

/** Connect type of a JSON number or string, by connect.type. */
const NUMBER_TYPES: Readonly<Record<string, () => SchemaBuilder>> = {
  int8: SchemaBuilder.int8,
  int16: SchemaBuilder.int16,
  int32: SchemaBuilder.int32,
  int64: SchemaBuilder.int64,
  float32: SchemaBuilder.float32,
  float64: SchemaBuilder.float64,
  bytes: SchemaBuilder.bytes,
};

/** JsonSchemaDataConfig (and AbstractDataConfig) settings, by Confluent's names and defaults. */
export const jsonSchemaDataSettings: readonly Setting[] = [
  {
    name: "object.additional.properties",
    type: "boolean",
    default: true,
    importance: "medium",
    doc: "Whether to allow additional properties for object schemas.",
  },
  {
    name: "use.optional.for.nonrequired",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Whether to set non-required properties to be optional.",
  },
  decimalFormat,
  flattenSingletonUnions,
  ...commonDataSettings,
];

export interface JsonSchemaDataOptions {
  readonly allowAdditionalProperties: boolean;
  readonly useOptionalForNonRequired: boolean;
  readonly decimalNumeric: boolean;
  readonly flattenSingletonUnions: boolean;
  readonly generalizedSumTypeSupport: boolean;
  readonly ignoreDefaultForNullables: boolean;
  readonly cacheSize: number;
}

const DEFAULT_JSON_SCHEMA_DATA_OPTIONS: JsonSchemaDataOptions = {
  allowAdditionalProperties: true,
  useOptionalForNonRequired: false,
  decimalNumeric: false,
  flattenSingletonUnions: true,
  generalizedSumTypeSupport: false,
  ignoreDefaultForNullables: false,
  cacheSize: 1000,
};

export function jsonSchemaDataOptions(settings: ParsedSettings): JsonSchemaDataOptions {
  return {
    allowAdditionalProperties: settings.boolean("object.additional.properties"),
    useOptionalForNonRequired: settings.boolean("use.optional.for.nonrequired"),
    decimalNumeric: settings.string("decimal.format") === "NUMERIC",
    flattenSingletonUnions: settings.boolean("flatten.singleton.unions"),
    generalizedSumTypeSupport: settings.boolean("generalized.sum.type.support"),
    ignoreDefaultForNullables: settings.boolean("ignore.default.for.nullables"),
    cacheSize: Math.max(1, settings.int("schemas.cache.config")),
  };
}

/** An Everit schema being built: its kind-specific keywords and the ones every schema has. */
interface Draft {
  kind: "number" | "boolean" | "string" | "enum" | "null" | "object" | "array" | "combined";
  integer?: boolean;
  enumValues?: JValue[];
  properties?: [string, Draft][];
  additionalPropertiesFalse?: boolean;
  additionalProperties?: Draft;
  items?: Draft;
  oneOf?: Draft[];
  title?: string;
  description?: string;
  default?: JValue;
  unprocessed: Map<string, JValue>;
}

const NULL_DRAFT = (): Draft => ({ kind: "null", unprocessed: new Map() });

export class JsonSchemaData {
  readonly options: JsonSchemaDataOptions;
  private readonly fromConnectCache = new WeakMap<Schema, JsonSchemaParsed>();
  private readonly derived: DerivedSchemas<JsonSchemaParsed>;
  private readonly toConnectCache = new WeakMap<SchemaNode, Schema>();

  constructor(options: Partial<JsonSchemaDataOptions> = {}) {
    this.options = { ...DEFAULT_JSON_SCHEMA_DATA_OPTIONS, ...options };
    this.derived = new DerivedSchemas(
      this.options.cacheSize,
      (text) => jsonSchemaFormat.parse(text, []),
      "The JSON schema derived from the Connect schema is invalid",
    );
  }

  // ------------------------------------------------------------------------------------------
  // Connect schema → JSON Schema

  fromConnectSchema(schema: Schema): JsonSchemaParsed {
    const cached = this.fromConnectCache.get(schema);
    if (cached) return cached;
    const text = writeJson(render(this.draftOf(schema, null, false)));
    const parsed = this.derived.parse(text);
    this.fromConnectCache.set(schema, parsed);
    return parsed;
  }

  private draftOf(schema: Schema, index: number | null, ignoreOptional: boolean): Draft {
    const params = schema.parameters;
    const unprocessed = new Map<string, JValue>();
    let draft: Draft;
    const number = (integer: boolean, connectType: string): Draft => {
      unprocessed.set(CONNECT_TYPE_PROP, connectType);
      return { kind: "number", integer, unprocessed };
    };
    switch (schema.type) {
      case "INT8":
        draft = number(true, "int8");
        break;
      case "INT16":
        draft = number(true, "int16");
        break;
      case "INT32":
        draft = number(true, "int32");
        break;
      case "INT64":
        draft = number(true, "int64");
        break;
      case "FLOAT32":
        draft = number(false, "float32");
        break;
      case "FLOAT64":
        draft = number(false, "float64");
        break;
      case "BOOLEAN":
        draft = { kind: "boolean", unprocessed };
        break;
      case "STRING":
        if (params && (params.has(GENERALIZED_TYPE_ENUM) || params.has(JSON_TYPE_ENUM))) {
          const paramName = this.options.generalizedSumTypeSupport ? GENERALIZED_TYPE_ENUM : JSON_TYPE_ENUM;
          const enumValues = [...params.keys()]
            .filter((k) => k.startsWith(paramName + "."))
            .map((k) => k.slice(paramName.length + 1))
            .map((s) => (s === NULL_MARKER ? null : s));
          draft = { kind: "enum", enumValues, unprocessed };
        } else draft = { kind: "string", unprocessed };
        break;
      case "BYTES":
        draft =
          schema.name === Decimal.LOGICAL_NAME && this.options.decimalNumeric
            ? { kind: "number", integer: false, unprocessed }
            : { kind: "string", unprocessed };
        unprocessed.set(CONNECT_TYPE_PROP, "bytes");
        break;
      case "ARRAY":
        draft = { kind: "array", items: this.draftOf(schema.valueSchema!, null, false), unprocessed };
        break;
      case "MAP": {
        const keySchema = schema.keySchema!;
        if (keySchema.type === "STRING" && !keySchema.optional) {
          draft = { kind: "object", additionalProperties: this.draftOf(schema.valueSchema!, null, false), unprocessed };
        } else {
          // JSON objects only have string keys: other maps are arrays of {key, value} objects.
          const entry: Draft = {
            kind: "object",
            properties: [
              [KEY_FIELD, this.draftOf(keySchema, 0, false)],
              [VALUE_FIELD, this.draftOf(schema.valueSchema!, 1, false)],
            ],
            unprocessed: new Map(),
          };
          draft = { kind: "array", items: entry, unprocessed };
        }
        unprocessed.set(CONNECT_TYPE_PROP, "map");
        break;
      }
      case "STRUCT":
        if (isUnionSchema(schema)) {
          const oneOf = schema.optional ? [NULL_DRAFT()] : [];
          for (const field of schema.fields) oneOf.push(this.draftOf(nonOptional(field.schema), field.index, true));
          draft = { kind: "combined", oneOf, unprocessed };
        } else if (schema.optional) {
          draft = {
            kind: "combined",
            oneOf: [NULL_DRAFT(), this.draftOf(nonOptional(schema), null, false)],
            unprocessed,
          };
        } else {
          const properties = schema.fields.map((field): [string, Draft] => [
            field.name,
            this.draftOf(field.schema, field.index, false),
          ]);
          draft = {
            kind: "object",
            properties,
            additionalPropertiesFalse: !this.options.allowAdditionalProperties,
            unprocessed,
          };
        }
        break;
    }

    if (draft.kind !== "combined") {
      if (schema.name !== null) draft.title = schema.name;
      if (schema.version !== null) unprocessed.set(CONNECT_VERSION_PROP, JNumber.integer(BigInt(schema.version)));
      if (schema.doc !== null) draft.description = schema.doc;
      if (params) {
        const kept = new Map([...params].filter(([k]) => !k.startsWith(NAMESPACE)));
        if (kept.size > 0)
          unprocessed.set(CONNECT_PARAMETERS_PROP, new Map(jsonObjectOrder(kept.keys()).map((k) => [k, kept.get(k)!])));
      }
      if (schema.defaultValue !== null) draft.default = defaultJson(this.toJsonValue(schema, schema.defaultValue));
      if (!ignoreOptional && schema.optional) {
        const combined: Draft = { kind: "combined", oneOf: [NULL_DRAFT(), draft], unprocessed: new Map() };
        draft = combined;
      }
    }
    if (index !== null) draft.unprocessed.set(CONNECT_INDEX_PROP, JNumber.integer(BigInt(index)));
    return draft;
  }

  // ------------------------------------------------------------------------------------------
  // Connect value → JSON text

  /** The JSON text of a value (JsonSchemaData.fromConnectData + Jackson); null when no record is written. */
  fromConnectData(schema: Schema, value: unknown): string | null {
    const json = this.toJsonValue(schema, value);
    return json === undefined ? null : writeJsonTree(json, (n) => n.number, "bytes");
  }

  /** A value as JSON; undefined where Java's JsonNode is null (a required value that is missing). */
  private toJsonValue(schema: Schema, value: unknown): OutValue | undefined {
    if (value === null || value === undefined) {
      if (schema.defaultValue !== null && !this.options.ignoreDefaultForNullables)
        return this.toJsonValue(schema, schema.defaultValue);
      return schema.optional ? null : undefined;
    }
    const invalid = (): never => {
      throw new DataException(`Invalid type for ${schema.type}: ${javaClassName(value)}`);
    };
    switch (schema.name) {
      case Decimal.LOGICAL_NAME:
        if (!(value instanceof BigDecimal))
          throw new DataException(`Invalid type for Decimal, expected BigDecimal but was ${javaClassName(value)}`);
        return this.options.decimalNumeric ? { number: value.toString() } : base64(Decimal.fromLogical(schema, value));
      case ConnectDate.LOGICAL_NAME:
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Date, expected Date but was ${javaClassName(value)}`);
        return { number: String(ConnectDate.fromLogical(schema, value)) };
      case Time.LOGICAL_NAME:
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Time, expected Date but was ${javaClassName(value)}`);
        return { number: String(Time.fromLogical(schema, value)) };
      case Timestamp.LOGICAL_NAME:
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Timestamp, expected Date but was ${javaClassName(value)}`);
        return { number: String(Timestamp.fromLogical(schema, value)) };
    }
    switch (schema.type) {
      case "INT8":
      case "INT16":
      case "INT32":
      case "INT64":
        if (!acceptsPlain(schema.type, value)) invalid();
        return { number: String(value) };
      case "FLOAT32":
        if (typeof value !== "number") invalid();
        return Number.isFinite(value)
          ? { number: javaFloatToString(value as number) }
          : javaFloatToString(value as number);
      case "FLOAT64":
        if (typeof value !== "number") invalid();
        // Jackson writes NaN and the infinities as strings.
        return Number.isFinite(value)
          ? { number: javaDoubleToString(value as number) }
          : javaDoubleToString(value as number);
      case "BOOLEAN":
        if (typeof value !== "boolean") invalid();
        return value as boolean;
      case "STRING":
        if (typeof value !== "string") invalid();
        return value as string;
      case "BYTES":
        if (value instanceof Uint8Array) return base64(value);
        if (value instanceof BigDecimal) return { number: value.toString() };
        throw new DataException(`Invalid type for bytes type: ${javaClassName(value)}`);
      case "ARRAY":
        if (!Array.isArray(value)) invalid();
        return (value as unknown[]).map((e) => this.toJsonValue(schema.valueSchema!, e) ?? null);
      case "MAP": {
        if (!(value instanceof Map) && !isPlainObject(value)) invalid();
        const keySchema = schema.keySchema!;
        const objectMode = keySchema.type === "STRING" && !keySchema.optional;
        const entries = [...mapEntries(value as Map<unknown, unknown>)].map(
          ([k, v]) =>
            [this.toJsonValue(keySchema, k) ?? null, this.toJsonValue(schema.valueSchema!, v) ?? null] as const,
        );
        if (objectMode) return new Map(entries.map(([k, v]) => [asText(k), v]));
        return entries.map(
          ([k, v]) =>
            new Map<string, OutValue>([
              [KEY_FIELD, k],
              [VALUE_FIELD, v],
            ]),
        );
      }
      case "STRUCT": {
        if (!(value instanceof Struct)) invalid();
        const struct = value as Struct;
        if (!struct.schema.equals(schema)) throw new DataException("Mismatching schema.");
        const get = (name: string) =>
          this.options.ignoreDefaultForNullables ? struct.getWithoutDefault(name) : struct.get(name);
        if (isUnionSchema(schema)) {
          for (const field of schema.fields) {
            const member = get(field.name);
            if (member !== null && member !== undefined) return this.toJsonValue(field.schema, member);
          }
          return this.toJsonValue(schema, null);
        }
        const out = new Map<string, OutValue>();
        for (const field of schema.fields) {
          const json = this.toJsonValue(field.schema, get(field.name));
          if (json !== undefined) out.set(field.name, json);
        }
        return out;
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // JSON Schema → Connect schema

  toConnectSchema(parsed: JsonSchemaParsed): Schema {
    const cached = this.toConnectCache.get(parsed.model);
    if (cached) return cached;
    const schema = this.toConnectSchemaAt(parsed.model, null, false, { unionIndex: 0, inProgress: new Set() });
    this.toConnectCache.set(parsed.model, schema);
    return schema;
  }

  private toConnectSchemaAt(
    node: SchemaNode,
    version: number | null,
    forceOptional: boolean,
    ctx: ToConnectContext,
  ): Schema {
    let builder: SchemaBuilder;
    switch (node.kind) {
      case "Boolean":
        builder = SchemaBuilder.bool();
        break;
      case "Number": {
        const type = unprocessedString(node, CONNECT_TYPE_PROP);
        if (type === null) builder = node.requiresInteger ? SchemaBuilder.int64() : SchemaBuilder.float64();
        else {
          const make = ownEntry(NUMBER_TYPES, type);
          if (!make) throw new DataException(`Unsupported type ${type}`);
          builder = make();
        }
        break;
      }
      case "String":
        builder =
          unprocessedString(node, CONNECT_TYPE_PROP) === "bytes" ? SchemaBuilder.bytes() : SchemaBuilder.string();
        break;
      case "Const":
        builder = this.enumBuilder([node.value]);
        break;
      case "Enum":
        builder = this.enumBuilder(node.values);
        break;
      case "Combined": {
        if (node.subschemas.length === 1 && this.options.flattenSingletonUnions)
          return this.toConnectSchemaAt(node.subschemas[0]!, null, false, ctx);
        if (node.criterion === "allOf") return this.allOfToConnectSchema(node, version, forceOptional, ctx);
        const name = this.options.generalizedSumTypeSupport
          ? GENERALIZED_TYPE_UNION_PREFIX + ctx.unionIndex++
          : JSON_TYPE_ONE_OF;
        if (node.subschemas.length === 2) {
          const nonNull = node.subschemas.filter((s) => s.kind !== "Null");
          if (nonNull.length === 1) return this.toConnectSchemaAt(nonNull[0]!, version, true, ctx);
        }
        builder = SchemaBuilder.struct().name(name);
        if (this.options.generalizedSumTypeSupport) builder.parameter(GENERALIZED_TYPE_UNION, name);
        let index = 0;
        for (const sub of node.subschemas) {
          if (sub.kind === "Null") {
            if (!builder.isOptional) builder.optional();
          } else {
            const fieldName = this.options.generalizedSumTypeSupport
              ? GENERALIZED_TYPE_UNION_FIELD_PREFIX + index
              : `${name}.field.${index}`;
            builder.field(fieldName, this.toConnectSchemaAt(sub, null, true, ctx));
            index++;
          }
        }
        break;
      }
      case "Array": {
        const items = node.allItemSchema;
        if (!items) throw new DataException("Array schema did not specify the items type");
        if (unprocessedString(node, CONNECT_TYPE_PROP) === "map" && items.kind === "Object") {
          const key = items.properties.get(KEY_FIELD);
          const value = items.properties.get(VALUE_FIELD);
          if (!key || !value) throw new DataException("Map entries need key and value properties");
          builder = SchemaBuilder.map(
            this.toConnectSchemaAt(key, null, false, ctx),
            this.toConnectSchemaAt(value, null, false, ctx),
          );
        } else builder = SchemaBuilder.array(this.toConnectSchemaAt(items, null, false, ctx));
        break;
      }
      case "Object":
        if (unprocessedString(node, CONNECT_TYPE_PROP) === "map") {
          if (!node.schemaOfAdditionalProperties) throw new DataException("Map schema did not specify the values type");
          builder = SchemaBuilder.map(
            Schema.STRING_SCHEMA,
            this.toConnectSchemaAt(node.schemaOfAdditionalProperties, null, false, ctx),
          );
        } else builder = this.structBuilder(node, [...orderedProperties(node)], new Set(node.required), ctx);
        break;
      case "Reference":
        if (!node.referred) throw new DataException(`Unresolved reference ${node.refValue}`);
        return this.toConnectSchemaAt(node.referred, version, forceOptional, ctx);
      default:
        throw new DataException(`Unsupported schema type ${node.kind}`);
    }
    // Only a oneOf struct is named already.
    return this.finish(builder, node, node.kind === "Combined", version, forceOptional);
  }

  /** Title, version, description, parameters and default, as every schema takes them. */
  private finish(
    builder: SchemaBuilder,
    node: SchemaNode,
    named: boolean,
    version: number | null,
    forceOptional: boolean,
  ): Schema {
    if (node.title !== undefined && !named) builder.name(node.title);
    const connectVersion = unprocessedRaw(node, CONNECT_VERSION_PROP);
    if (connectVersion instanceof JNumber) builder.version(Number(connectVersion.unscaled));
    else if (version !== null) builder.version(version);
    if (node.description !== undefined) builder.doc(node.description);
    const parameters = unprocessedRaw(node, CONNECT_PARAMETERS_PROP);
    if (isJObject(parameters))
      for (const [k, v] of parameters) builder.parameter(k, typeof v === "string" ? v : writeJson(v));
    if (forceOptional && !builder.isOptional) builder.optional();
    const schema = builder.build();
    if (node.defaultValue === undefined) return schema;
    const value = this.toConnectData(schema, node.defaultValue.value);
    return value === null || value === undefined ? schema : withDefault(schema, value);
  }

  private structBuilder(
    owner: SchemaNode,
    properties: [string, SchemaNode][],
    required: ReadonlySet<string>,
    ctx: ToConnectContext,
  ): SchemaBuilder {
    if (ctx.inProgress.has(owner))
      throw new DataException("Recursive JSON schemas cannot be represented as Connect schemas");
    ctx.inProgress.add(owner);
    const builder = SchemaBuilder.struct();
    // Fields in connect.index order; properties without one are numbered as they come (a TreeMap in Java).
    const byIndex = new Map<number, [string, SchemaNode]>();
    for (const property of properties) {
      const index = unprocessedRaw(property[1], CONNECT_INDEX_PROP);
      byIndex.set(index instanceof JNumber ? Number(index.unscaled) : byIndex.size, property);
    }
    for (const [, [name, sub]] of [...byIndex].sort(([a], [b]) => a - b)) {
      const optional = this.options.useOptionalForNonRequired && !required.has(name);
      builder.field(name, this.toConnectSchemaAt(sub, null, optional, ctx));
    }
    ctx.inProgress.delete(owner);
    return builder;
  }

  /** allOf: merged object properties, or the subschema that says what the value is. */
  private allOfToConnectSchema(
    node: CombinedNode,
    version: number | null,
    forceOptional: boolean,
    ctx: ToConnectContext,
  ): Schema {
    const find = <K extends SchemaNode["kind"]>(kind: K) =>
      node.subschemas.filter((s): s is Extract<SchemaNode, { kind: K }> => s.kind === kind).pop();
    const properties = new Map<string, SchemaNode>();
    const required = new Set<string>();
    const collect = (s: SchemaNode, seen: Set<SchemaNode>): void => {
      if (seen.has(s)) return;
      seen.add(s);
      if (s.kind === "Combined" && s.criterion === "allOf") for (const sub of s.subschemas) collect(sub, seen);
      else if (s.kind === "Object") {
        for (const [name, sub] of orderedProperties(s)) {
          properties.set(name, sub);
          if (s.required.includes(name)) required.add(name);
          else required.delete(name);
        }
      } else if (s.kind === "Reference" && s.referred) collect(s.referred, seen);
    };
    for (const sub of node.subschemas) collect(sub, new Set());
    if (properties.size > 0) {
      const builder = this.structBuilder(
        node,
        [...properties].map(([k, v]) => [k, stripIndex(v)]),
        required,
        ctx,
      );
      if (forceOptional) builder.optional();
      return builder.build();
    }
    const combined = find("Combined");
    const constant = find("Const");
    const enumeration = find("Enum");
    const number = find("Number");
    const string = find("String");
    const reference = find("Reference");
    if (combined) return this.toConnectSchemaAt(combined, version, forceOptional, ctx);
    if (constant) {
      if (string) return this.toConnectSchemaAt(string, version, forceOptional, ctx);
      if (number) return this.toConnectSchemaAt(number, version, forceOptional, ctx);
    } else if (enumeration) {
      if (string) return this.toConnectSchemaAt(enumeration, version, forceOptional, ctx);
      if (number) return this.toConnectSchemaAt(number, version, forceOptional, ctx);
    } else if (string) {
      // Everit always has a format validator (NONE at least): a string with a number is a formatted number.
      return this.toConnectSchemaAt(number ?? string, version, forceOptional, ctx);
    } else if (reference?.referred) return this.toConnectSchemaAt(reference.referred, version, forceOptional, ctx);
    throw new DataException("Unsupported criterion allOf: no properties and no subschema saying what the value is");
  }

  private enumBuilder(values: readonly JValue[]): SchemaBuilder {
    const builder = SchemaBuilder.string();
    const paramName = this.options.generalizedSumTypeSupport ? GENERALIZED_TYPE_ENUM : JSON_TYPE_ENUM;
    // JSON enums have no name: an empty string stands in.
    builder.parameter(paramName, "");
    values.forEach((v, i) => {
      const symbol = v === null ? NULL_MARKER : typeof v === "string" ? v : writeJson(v);
      builder.parameter(`${paramName}.${symbol}`, this.options.generalizedSumTypeSupport ? String(i) : symbol);
    });
    return builder;
  }

  // ------------------------------------------------------------------------------------------
  // JSON value → Connect value

  /** JsonSchemaData.toConnectData: `json` undefined is a missing property. */
  toConnectData(schema: Schema, json: JValue | undefined): unknown {
    if (json === undefined || json === null) {
      if (schema.defaultValue !== null) return schema.defaultValue;
      if (json === undefined || schema.optional) return null;
      throw new DataException(`Invalid null value for required ${schema.type} field`);
    }
    switch (schema.name) {
      case Decimal.LOGICAL_NAME:
        if (json instanceof JNumber) return new BigDecimal(json.unscaled, json.scale);
        if (typeof json === "string") return Decimal.toLogical(schema, fromBase64(json));
        throw new DataException(
          `Invalid type for Decimal, underlying representation should be numeric or bytes but was ${nodeType(json)}`,
        );
      case ConnectDate.LOGICAL_NAME:
        if (!isInt(json))
          throw new DataException(
            `Invalid type for Date, underlying representation should be integer but was ${nodeType(json)}`,
          );
        return ConnectDate.toLogical(schema, Number((json as JNumber).unscaled));
      case Time.LOGICAL_NAME:
        if (!isInt(json))
          throw new DataException(
            `Invalid type for Time, underlying representation should be integer but was ${nodeType(json)}`,
          );
        return Time.toLogical(schema, Number((json as JNumber).unscaled));
      case Timestamp.LOGICAL_NAME:
        if (!(json instanceof JNumber) || !json.integral)
          throw new DataException(
            `Invalid type for Timestamp, underlying representation should be integral but was ${nodeType(json)}`,
          );
        return Timestamp.toLogical(schema, BigInt.asIntN(64, json.unscaled));
    }
    // Jackson's node accessors: a number of another kind is cast, anything else reads as 0/false/null.
    switch (schema.type) {
      case "BOOLEAN":
        return json === true;
      case "INT8":
        return Number(BigInt.asIntN(8, BigInt.asIntN(16, truncated(json))));
      case "INT16":
        return Number(BigInt.asIntN(16, truncated(json)));
      case "INT32":
        return Number(BigInt.asIntN(32, truncated(json)));
      case "INT64":
        return BigInt.asIntN(64, truncated(json));
      case "FLOAT32":
        return Math.fround(json instanceof JNumber ? json.toNumber() : 0);
      case "FLOAT64":
        return json instanceof JNumber ? json.toNumber() : 0;
      case "STRING":
        return typeof json === "string" ? json : null;
      case "BYTES":
        if (typeof json === "string") return fromBase64(json);
        if (json instanceof JNumber) return new BigDecimal(json.unscaled, json.scale);
        return null;
      case "ARRAY":
        return Array.isArray(json) ? json.map((e) => this.toConnectData(schema.valueSchema!, e)) : [];
      case "MAP": {
        const keySchema = schema.keySchema!;
        const out = new Map<unknown, unknown>();
        if (keySchema.type === "STRING" && !keySchema.optional) {
          if (!isJObject(json))
            throw new DataException(
              `Maps with string fields should be encoded as JSON objects, but found ${nodeType(json)}`,
            );
          for (const [k, v] of json) out.set(k, this.toConnectData(schema.valueSchema!, v));
        } else {
          if (!Array.isArray(json))
            throw new DataException(
              `Maps with non-string fields should be encoded as JSON array of objects, but found ${nodeType(json)}`,
            );
          for (const entry of json) {
            if (!isJObject(entry))
              throw new DataException(`Found invalid map entry instead of object: ${nodeType(entry)}`);
            if (entry.size !== 2)
              throw new DataException(`Found invalid map entry, expected length 2 but found :${writeJson(entry)}`);
            out.set(
              this.toConnectData(keySchema, entry.get(KEY_FIELD)),
              this.toConnectData(schema.valueSchema!, entry.get(VALUE_FIELD)),
            );
          }
        }
        return out;
      }
      case "STRUCT": {
        if (isUnionSchema(schema)) return this.unionToConnect(schema, json);
        if (!isJObject(json))
          throw new DataException(`Structs should be encoded as JSON objects, but found ${nodeType(json)}`);
        const struct = new Struct(schema);
        for (const field of schema.fields) {
          const v = this.toConnectData(field.schema, json.get(field.name));
          if (v !== null && v !== undefined) struct.put(field, v);
        }
        return struct;
      }
    }
  }

  /** A oneOf value: the first member whose type the JSON has, else the struct member sharing most properties. */
  private unionToConnect(schema: Schema, json: JValue): Struct {
    const prefix = schema.parameters?.has(GENERALIZED_TYPE_UNION)
      ? GENERALIZED_TYPE_UNION_FIELD_PREFIX
      : `${JSON_TYPE_ONE_OF}.field.`;
    let best: { score: number; index: number } | null = null;
    for (const field of schema.fields) {
      if (simpleTypeMatches(field.schema, json))
        return new Struct(schema).put(prefix + field.index, this.toConnectData(field.schema, json));
      const score = structMatch(field.schema, json);
      if (score > (best?.score ?? 0)) best = { score, index: field.index };
    }
    if (best) {
      const field = schema.fields[best.index]!;
      return new Struct(schema).put(prefix + best.index, this.toConnectData(field.schema, json));
    }
    throw new DataException("Did not find matching oneof field for data");
  }
}

interface ToConnectContext {
  unionIndex: number;
  inProgress: Set<SchemaNode>;
}

/** A value on its way to JSON text: numbers carry the digits Jackson prints. */
type OutValue = JsonTree<{ number: string }>;

/** JsonNode.asText of a map key. */
function asText(v: OutValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v) || v instanceof Map) return "";
  return v.number;
}

/** A default as Everit prints it (org.json objects): numbers in org.json's form (no trailing ".0"). */
function defaultJson(v: OutValue | undefined): JValue {
  if (v === undefined || v === null) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(defaultJson);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, defaultJson(x)]));
  let text = v.number;
  if (text.includes(".") && !/[eE]/.test(text)) text = text.replace(/0+$/, "").replace(/\.$/, "");
  const parsed = readTree(text);
  return parsed instanceof JNumber ? parsed : text;
}

/** Everit's printer (ToStringVisitor): kind keywords, then title, description, default, the unprocessed keywords in hash order, then subschemas. */
function render(d: Draft): JObject {
  const out: JObject = new Map();
  const common = (): void => {
    if (d.title !== undefined) out.set("title", d.title);
    if (d.description !== undefined) out.set("description", d.description);
    if (d.default !== undefined) out.set("default", d.default);
    // Built in a HashMap, copied by Everit's Schema constructor (new HashMap<>(map)), printed in that order.
    const order = JavaHashKeys.copyOf(JavaHashKeys.of(d.unprocessed.keys()).keys(), false).keys();
    for (const key of order) out.set(key, d.unprocessed.get(key)!);
  };
  switch (d.kind) {
    case "number":
      out.set("type", d.integer ? "integer" : "number");
      common();
      break;
    case "boolean":
      // The only kind whose type comes after the common keywords.
      common();
      out.set("type", "boolean");
      break;
    case "string":
      out.set("type", "string");
      common();
      break;
    case "null":
      out.set("type", "null");
      common();
      break;
    case "enum":
      out.set("enum", d.enumValues!);
      common();
      break;
    case "array":
      out.set("type", "array");
      common();
      out.set("items", render(d.items!));
      break;
    case "object":
      out.set("type", "object");
      if (d.additionalPropertiesFalse) out.set("additionalProperties", false);
      common();
      if (d.additionalProperties) out.set("additionalProperties", render(d.additionalProperties));
      if (d.properties && d.properties.length > 0) {
        // Everit keeps properties in a HashMap: printed in hash order (connect.index keeps the field order).
        const byName = new Map(d.properties);
        out.set(
          "properties",
          new Map(
            JavaHashKeys.of(byName.keys())
              .keys()
              .map((k) => [k, render(byName.get(k)!)]),
          ),
        );
      }
      break;
    case "combined":
      common();
      out.set("oneOf", d.oneOf!.map(render));
      break;
  }
  return out;
}

/**
 * Key order of the parameters object as printed: Collectors.toMap's HashMap, turned by org.json into
 * a JSONObject (a HashMap sized for the entries).
 */
function jsonObjectOrder(keys: Iterable<string>): string[] {
  const source = JavaHashKeys.of(keys).keys();
  const printed = new JavaHashKeys(source.length);
  printed.addAll(source);
  return printed.keys();
}

function unprocessedRaw(node: SchemaNode, key: string): JValue | undefined {
  const v = node.unprocessed.get(key);
  return v !== undefined && "raw" in v ? v.raw : undefined;
}

function unprocessedString(node: SchemaNode, key: string): string | null {
  const v = unprocessedRaw(node, key);
  return typeof v === "string" ? v : null;
}

/** Properties in the order Java's property map iterates them. */
function orderedProperties(node: ObjectNode): [string, SchemaNode][] {
  return propertyOrder(node).map((name) => [name, node.properties.get(name)!]);
}

/** allOf properties are numbered by position, as Java's builder gets them (connect.index is not read there). */
function stripIndex(node: SchemaNode): SchemaNode {
  if (!node.unprocessed.has(CONNECT_INDEX_PROP)) return node;
  const unprocessed = new Map(node.unprocessed);
  unprocessed.delete(CONNECT_INDEX_PROP);
  return { ...node, unprocessed } as SchemaNode;
}

function isUnionSchema(schema: Schema): boolean {
  return schema.name === JSON_TYPE_ONE_OF || (schema.parameters?.has(GENERALIZED_TYPE_UNION) ?? false);
}

function nonOptional(schema: Schema): Schema {
  return schema.optional ? rebuild(schema, { optional: false }) : schema;
}

function withDefault(schema: Schema, value: unknown): Schema {
  if (!(value instanceof Struct)) validateValue(schema, value);
  return rebuild(schema, { defaultValue: value });
}

function rebuild(schema: Schema, change: { optional?: boolean; defaultValue?: unknown }): Schema {
  return copySchema(schema, change);
}

function nodeType(v: JValue): string {
  if (v === null) return "NULL";
  if (typeof v === "boolean") return "BOOLEAN";
  if (typeof v === "string") return "STRING";
  if (v instanceof JNumber) return "NUMBER";
  return Array.isArray(v) ? "ARRAY" : "OBJECT";
}

function isInt(v: JValue): boolean {
  return v instanceof JNumber && v.integral && BigInt.asIntN(32, v.unscaled) === v.unscaled;
}

/** The number cut to an integer toward zero (BigDecimal.toBigInteger); 0 for anything else. */
function truncated(v: JValue): bigint {
  if (!(v instanceof JNumber)) return 0n;
  if (v.integral || v.scale === 0) return v.unscaled;
  return v.scale > 0 ? v.unscaled / 10n ** BigInt(v.scale) : v.unscaled * 10n ** BigInt(-v.scale);
}

function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(text)) throw new DataException("Invalid bytes field: not base64");
  return new Uint8Array(Buffer.from(text, "base64"));
}

function simpleTypeMatches(schema: Schema, json: JValue): boolean {
  switch (schema.type) {
    case "INT8":
    case "INT16":
    case "INT32":
    case "INT64":
      return json instanceof JNumber && json.integral;
    case "FLOAT32":
    case "FLOAT64":
      return json instanceof JNumber;
    case "BOOLEAN":
      return typeof json === "boolean";
    case "STRING":
      return typeof json === "string";
    case "BYTES":
      // A binary node never comes out of a parse; a decimal number does.
      return json instanceof JNumber && !json.integral;
    case "ARRAY":
      return Array.isArray(json);
    case "MAP":
      return isJObject(json) || Array.isArray(json);
    case "STRUCT":
      return false;
  }
}

/** How many properties (nested ones included) an object shares with a struct schema. */
function structMatch(schema: Schema, json: JValue): number {
  if (schema.type !== "STRUCT" || !isJObject(json)) return 0;
  let score = 0;
  for (const field of schema.fields) {
    const child = json.get(field.name);
    if (child === undefined) continue;
    score += 1 + structMatch(field.schema, child);
  }
  return score;
}
