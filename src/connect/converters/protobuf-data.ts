// Connect data ↔ Protobuf, mapped as Confluent's ProtobufData (io.confluent.connect.protobuf) maps
// it. A Connect struct becomes a proto3 message (package and name from the schema name, else
// ConnectDefault1), nested structs and map entries become nested messages, int8/int16 keep their
// Connect type in `(confluent.field_meta)` params, optional structs are simply absent messages,
// unions are oneofs, and Decimal/Date/Time/Timestamp use confluent.type.Decimal, google.type.Date,
// google.type.TimeOfDay and google.protobuf.Timestamp. The file is built as the registry's element
// tree (what Confluent's ProtobufSchema makes of the descriptor) and printed by its canonical
// printer; values are encoded and decoded with the protobufjs types of the parsed schema, whose
// field and oneof names are camelCase (protobufjs's default): Connect keeps the .proto names.
import { commonDataSettings } from "./data-config.ts";
import protobuf from "protobufjs";
import type { ParsedSettings, Setting } from "../../platform/settings.ts";
import { canonicalString } from "../../schema/protobuf/canonical.ts";
import {
  emptyMessage,
  type FieldElement,
  type MessageElement,
  type OneOfElement,
  type OptionElement,
  type OptionMap,
  type OptionValue,
  type ProtoFileElement,
} from "../../schema/protobuf/elements.ts";
import { protobufFormat, type ProtobufParsedSchema } from "../../schema/protobuf/index.ts";
import { JavaHashKeys } from "../../jvm/hash-order.ts";
import { BigDecimal } from "../../jvm/big-decimal.ts";
import {
  DataException,
  isPlainObject,
  javaClassName,
  ConnectDate,
  Decimal,
  fromTwosComplement,
  Time,
  Timestamp,
  twosComplementBytes,
  acceptsPlain,
  mapEntries,
  type Schema,
  SchemaBuilder,
  Struct,
} from "../api/data/index.ts";
import { DerivedSchemas } from "./derived-schemas.ts";
import { scrubName as avroScrubName } from "./avro-data.ts";
import { ownEntry } from "../../platform/own.ts";

const NAMESPACE = "io.confluent.connect.protobuf";
const DEFAULT_SCHEMA_NAME = "ConnectDefault";
const MAP_ENTRY_SUFFIX = "Entry";
const KEY_FIELD = "key";
const VALUE_FIELD = "value";
const PROTOBUF_TYPE_ENUM = `${NAMESPACE}.Enum`;
const PROTOBUF_TYPE_UNION = `${NAMESPACE}.Union`;
const PROTOBUF_TYPE_UNION_PREFIX = `${PROTOBUF_TYPE_UNION}.`;
const PROTOBUF_TYPE_TAG = `${NAMESPACE}.Tag`;
const PROTOBUF_TYPE_PROP = `${NAMESPACE}.Type`;
const PROTOBUF_PRECISION_PROP = "precision";
const PROTOBUF_SCALE_PROP = "scale";
const CONNECT_PRECISION_PROP = "connect.decimal.precision";
const CONNECT_TYPE_PROP = "connect.type";
const GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union";
const GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum";
const FIELD_META = "confluent.field_meta";

/** Well-known message types for Connect's logical types, and the files defining them. */
const DECIMAL_TYPE = "confluent.type.Decimal";
const DATE_TYPE = "google.type.Date";
const TIME_TYPE = "google.type.TimeOfDay";
const TIMESTAMP_TYPE = "google.protobuf.Timestamp";
const LOGICAL_TYPES: Readonly<Record<string, { type: string; file: string }>> = {
  [Decimal.LOGICAL_NAME]: { type: DECIMAL_TYPE, file: "confluent/type/decimal.proto" },
  [ConnectDate.LOGICAL_NAME]: { type: DATE_TYPE, file: "google/type/date.proto" },
  [Time.LOGICAL_NAME]: { type: TIME_TYPE, file: "google/type/timeofday.proto" },
  [Timestamp.LOGICAL_NAME]: { type: TIMESTAMP_TYPE, file: "google/protobuf/timestamp.proto" },
};

/** google.protobuf wrapper messages read as (optional) primitives. */
const WRAPPERS: Readonly<Record<string, () => SchemaBuilder>> = {
  "google.protobuf.DoubleValue": SchemaBuilder.float64,
  "google.protobuf.FloatValue": SchemaBuilder.float32,
  "google.protobuf.Int64Value": SchemaBuilder.int64,
  "google.protobuf.UInt64Value": SchemaBuilder.int64,
  "google.protobuf.Int32Value": SchemaBuilder.int32,
  "google.protobuf.UInt32Value": SchemaBuilder.int64,
  "google.protobuf.BoolValue": SchemaBuilder.bool,
  "google.protobuf.StringValue": SchemaBuilder.string,
  "google.protobuf.BytesValue": SchemaBuilder.bytes,
};

/** ProtobufDataConfig settings implemented here, by Confluent's names and defaults. */
export const protobufDataSettings: readonly Setting[] = [
  {
    name: "enhanced.protobuf.schema.support",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Toggle for enabling/disabling enhanced protobuf schema support: package name preservation",
  },
  {
    name: "scrub.invalid.names",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Whether to scrub invalid names by replacing invalid characters with valid ones",
  },
  {
    name: "int.for.enums",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Whether to represent enums as integers",
  },
  {
    name: "optional.for.nullables",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Whether nullable fields should be specified with an optional label",
  },
  {
    name: "wrapper.for.raw.primitives",
    type: "boolean",
    default: true,
    importance: "medium",
    doc: "Whether a wrapper type should be interpreted as a raw primitive at root level",
  },
  {
    name: "generate.struct.for.nulls",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Whether to generate a default struct for null messages",
  },
  {
    name: "generate.index.for.unions",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to suffix union names with an underscore followed by an index",
  },
  {
    name: "flatten.unions",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Whether to flatten unions (oneofs)",
  },
  ...commonDataSettings,
];

export interface ProtobufDataOptions {
  readonly enhancedSchemaSupport: boolean;
  readonly scrubInvalidNames: boolean;
  readonly useIntForEnums: boolean;
  readonly useOptionalForNullables: boolean;
  readonly useWrapperForRawPrimitives: boolean;
  readonly generateStructForNulls: boolean;
  readonly generateIndexForUnions: boolean;
  readonly flattenUnions: boolean;
  readonly generalizedSumTypeSupport: boolean;
  readonly ignoreDefaultForNullables: boolean;
  readonly cacheSize: number;
}

const DEFAULT_PROTOBUF_DATA_OPTIONS: ProtobufDataOptions = {
  enhancedSchemaSupport: false,
  scrubInvalidNames: false,
  useIntForEnums: false,
  useOptionalForNullables: false,
  useWrapperForRawPrimitives: true,
  generateStructForNulls: false,
  generateIndexForUnions: true,
  flattenUnions: false,
  generalizedSumTypeSupport: false,
  ignoreDefaultForNullables: false,
  cacheSize: 1000,
};

export function protobufDataOptions(settings: ParsedSettings): ProtobufDataOptions {
  return {
    enhancedSchemaSupport: settings.boolean("enhanced.protobuf.schema.support"),
    scrubInvalidNames: settings.boolean("scrub.invalid.names"),
    useIntForEnums: settings.boolean("int.for.enums"),
    useOptionalForNullables: settings.boolean("optional.for.nullables"),
    useWrapperForRawPrimitives: settings.boolean("wrapper.for.raw.primitives"),
    generateStructForNulls: settings.boolean("generate.struct.for.nulls"),
    generateIndexForUnions: settings.boolean("generate.index.for.unions"),
    flattenUnions: settings.boolean("flatten.unions"),
    generalizedSumTypeSupport: settings.boolean("generalized.sum.type.support"),
    ignoreDefaultForNullables: settings.boolean("ignore.default.for.nullables"),
    cacheSize: Math.max(1, settings.int("schemas.cache.config")),
  };
}

/** A derived schema and the message values are written as. */
export interface ProtobufWriter {
  readonly parsed: ProtobufParsedSchema;
  /** Full name of the root message (package included). */
  readonly messageName: string;
}

class FromConnectContext {
  private readonly children = new Map<MessageElement, Set<string>>();
  private nameIndex = 0;

  /** A type of that name is defined in (or is) `parent` already. */
  contains(parent: MessageElement, child: string): boolean {
    return parent.name === child || (this.children.get(parent)?.has(child) ?? false);
  }

  add(parent: MessageElement, child: string): void {
    let set = this.children.get(parent);
    if (!set) this.children.set(parent, (set = new Set()));
    set.add(child);
  }

  nextNameIndex(): number {
    return ++this.nameIndex;
  }
}

export class ProtobufData {
  readonly options: ProtobufDataOptions;
  private readonly fromConnectCache = new WeakMap<Schema, ProtobufWriter>();
  private readonly derived: DerivedSchemas<ProtobufParsedSchema>;
  private readonly toConnectCache = new WeakMap<protobuf.Type, Schema>();
  /** proto2 `optional` fields met while deriving Connect schemas (their presence is explicit). */
  private readonly proto2Optional = new WeakSet<protobuf.Field>();
  /** The .proto names of fields and oneofs (protobufjs holds them camelCased), as Connect names them. */
  private readonly protoNames = new WeakMap<protobuf.ReflectionObject, string>();

  constructor(options: Partial<ProtobufDataOptions> = {}) {
    this.options = { ...DEFAULT_PROTOBUF_DATA_OPTIONS, ...options };
    this.derived = new DerivedSchemas(
      this.options.cacheSize,
      (text) => protobufFormat.parse(text, []),
      "Invalid protobuf schema definition",
    );
  }

  // ------------------------------------------------------------------------------------------
  // Connect schema → .proto

  fromConnectSchema(schema: Schema): ProtobufWriter {
    const cached = this.fromConnectCache.get(schema);
    if (cached) return cached;
    if (schema.type !== "STRUCT") {
      // Confluent writes primitives as google.protobuf wrapper messages; not supported here.
      throw new DataException(`Unsupported root schema of type ${schema.type}: the Protobuf converter writes structs`);
    }
    const ctx = new FromConnectContext();
    const [packageName, name] = this.splitName(
      schema.name !== null && schema.name !== "" ? schema.name : DEFAULT_SCHEMA_NAME + ctx.nextNameIndex(),
    );
    const imports: string[] = [];
    const file: ProtoFileElement = {
      packageName,
      syntax: "proto3",
      imports,
      publicImports: [],
      weakImports: [],
      types: [this.messageFromConnect(ctx, imports, name, schema)],
      services: [],
      extendDeclarations: [],
      options: [],
    };
    const text = canonicalString(file);
    const parsed = this.derived.parse(text);
    const writer = { parsed, messageName: packageName === null ? name : `${packageName}.${name}` };
    this.fromConnectCache.set(schema, writer);
    return writer;
  }

  private messageFromConnect(ctx: FromConnectContext, imports: string[], name: string, struct: Schema): MessageElement {
    const message = emptyMessage(name);
    let index = 1;
    for (const field of struct.fields) {
      const tagParam = field.schema.parameters?.get(PROTOBUF_TYPE_TAG);
      const tag = tagParam !== undefined ? Number.parseInt(tagParam, 10) : index++;
      const element = this.fieldFromConnect(
        ctx,
        imports,
        message,
        field.schema,
        this.scrubName(field.name),
        tag,
        false,
      );
      if (element) message.fields.push(element);
    }
    return message;
  }

  /** A field of `message` (nested types it needs are added to it); null for a union, which becomes a oneof. */
  private fieldFromConnect(
    ctx: FromConnectContext,
    imports: string[],
    message: MessageElement,
    schema: Schema,
    name: string,
    tag: number,
    oneofMember: boolean,
  ): FieldElement | null {
    const label =
      schema.type === "ARRAY" || schema.type === "MAP"
        ? "repeated"
        : this.options.useOptionalForNullables && schema.optional && !oneofMember
          ? "optional"
          : null;
    const element = schema.type === "ARRAY" ? schema.valueSchema! : schema;
    if (element.type === "ARRAY") throw new DataException("Array cannot be nested");
    const params = new Map<string, string>();
    const type = this.dataType(ctx, element, name, params);
    const logical = element.name !== null ? ownEntry(LOGICAL_TYPES, element.name) : undefined;
    if (logical) {
      if (!imports.includes(logical.file)) imports.push(logical.file);
    } else if (element.type === "STRUCT") {
      if (isUnionSchema(element)) {
        const unionName = this.options.generalizedSumTypeSupport
          ? (element.parameters?.get(GENERALIZED_TYPE_UNION) ?? "")
          : this.unqualifiedName(ctx, element.name!.slice(PROTOBUF_TYPE_UNION_PREFIX.length));
        const oneOf: OneOfElement = { name: unionName, fields: [], groups: [], options: [] };
        for (const member of element.fields) {
          const tagParam = member.schema.parameters?.get(PROTOBUF_TYPE_TAG);
          const memberField = this.fieldFromConnect(
            ctx,
            imports,
            message,
            member.schema,
            this.scrubName(member.name),
            tagParam !== undefined ? Number.parseInt(tagParam, 10) : 0,
            true,
          );
          if (memberField) oneOf.fields.push({ ...memberField, label: null });
        }
        message.oneOfs.push(oneOf);
        return null;
      }
      if (!ctx.contains(message, type)) {
        ctx.add(message, type);
        message.nestedTypes.push(this.messageFromConnect(ctx, imports, type, element));
      }
    } else if (element.type === "MAP") {
      const entry = this.messageFromConnect(ctx, imports, type, SchemaBuilder.struct().build());
      const key = this.fieldFromConnect(ctx, imports, entry, element.keySchema!, KEY_FIELD, 1, false);
      const value = this.fieldFromConnect(ctx, imports, entry, element.valueSchema!, VALUE_FIELD, 2, false);
      if (key) entry.fields.push(key);
      if (value) entry.fields.push(value);
      message.nestedTypes.push(entry);
    } else if (
      element.parameters &&
      (element.parameters.has(GENERALIZED_TYPE_ENUM) || element.parameters.has(PROTOBUF_TYPE_ENUM))
    ) {
      const enumName = this.unqualifiedName(ctx, element.name);
      if (!message.nestedTypes.some((t) => t.kind === "enum" && t.name === enumName)) {
        const paramName = this.options.generalizedSumTypeSupport ? GENERALIZED_TYPE_ENUM : PROTOBUF_TYPE_ENUM;
        const constants = [...element.parameters]
          .filter(([k]) => k.startsWith(paramName + "."))
          .map(([k, v]) => ({ name: k.slice(paramName.length + 1), tag: Number.parseInt(v, 10), options: [] }));
        message.nestedTypes.push({
          kind: "enum",
          name: enumName,
          options: [],
          constants,
          reserveds: [],
          position: null,
        });
      }
    }
    const options: OptionElement[] = params.size > 0 ? [metaOption(params)] : [];
    return { label, type, name, defaultValue: null, jsonName: null, tag, options, position: null };
  }

  /** The field type for a Connect schema (ProtobufData.dataTypeFromConnectSchema); `params` gets its meta params. */
  private dataType(ctx: FromConnectContext, schema: Schema, fieldName: string, params: Map<string, string>): string {
    const logical = schema.name !== null ? LOGICAL_TYPES[schema.name] : undefined;
    if (logical) {
      if (schema.name === Decimal.LOGICAL_NAME && schema.parameters) {
        const precision = schema.parameters.get(CONNECT_PRECISION_PROP);
        if (precision !== undefined) params.set(PROTOBUF_PRECISION_PROP, precision);
        const scale = schema.parameters.get(Decimal.SCALE_FIELD);
        if (scale !== undefined) params.set(PROTOBUF_SCALE_PROP, scale);
      }
      return logical.type;
    }
    const p = schema.parameters;
    switch (schema.type) {
      case "INT8":
      case "INT16":
        params.set(CONNECT_TYPE_PROP, schema.type === "INT8" ? "int8" : "int16");
        return "int32";
      case "INT32":
        return p?.get(PROTOBUF_TYPE_ENUM) ?? p?.get(PROTOBUF_TYPE_PROP) ?? "int32";
      case "INT64":
        return p?.get(PROTOBUF_TYPE_PROP) ?? "int64";
      case "FLOAT32":
        return "float";
      case "FLOAT64":
        return "double";
      case "BOOLEAN":
        return "bool";
      case "STRING":
        return p?.get(GENERALIZED_TYPE_ENUM) ?? p?.get(PROTOBUF_TYPE_ENUM) ?? "string";
      case "BYTES":
        return "bytes";
      case "ARRAY":
        throw new DataException("Array cannot be nested");
      case "MAP":
        return toMapEntry(this.unqualifiedName(ctx, schema.name));
      case "STRUCT": {
        const name = this.unqualifiedName(ctx, schema.name);
        // A message type may not share its name with the field.
        return name === fieldName ? `${name}Message` : name;
      }
    }
  }

  private unqualifiedName(ctx: FromConnectContext, name: string | null): string {
    const full = name !== null && name !== "" ? name : DEFAULT_SCHEMA_NAME + ctx.nextNameIndex();
    return this.scrubName(full.slice(full.lastIndexOf(".") + 1));
  }

  private splitName(fullName: string): [string | null, string] {
    const parts = fullName.split(".");
    while (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    const scrubbed = parts.map((p) => this.scrubName(p));
    return scrubbed.length <= 1
      ? [null, scrubbed[0]!]
      : [scrubbed.slice(0, -1).join("."), scrubbed[scrubbed.length - 1]!];
  }

  private scrubName(name: string): string {
    if (!this.options.scrubInvalidNames || name === "") return name;
    // Protobuf's scrubbing also refuses a leading underscore.
    return name.startsWith("_") ? avroScrubName("x" + name) : avroScrubName(name);
  }

  // ------------------------------------------------------------------------------------------
  // Connect value → message object

  /** The plain object protobufjs encodes as the message `type`; null for a null value (no record). */
  fromConnectData(schema: Schema, type: protobuf.Type, value: unknown): Record<string, unknown> | null {
    if (value === null || value === undefined) return null;
    return this.structToMessage(schema, type, value);
  }

  private structToMessage(schema: Schema, type: protobuf.Type, value: unknown): Record<string, unknown> {
    if (!(value instanceof Struct)) throw new DataException(`Invalid type for STRUCT: ${javaClassName(value)}`);
    if (!value.schema.equals(schema)) throw new DataException("Mismatching struct schema");
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const field of schema.fields) {
      const fieldValue = this.options.ignoreDefaultForNullables
        ? value.getWithoutDefault(field.name)
        : value.get(field);
      if (fieldValue === null || fieldValue === undefined) continue;
      const name = this.scrubName(field.name);
      if (isUnionSchema(field.schema)) {
        const [memberName, memberValue] = this.unionToMessage(field.schema, type, fieldValue);
        if (memberValue !== null) out[memberName] = memberValue;
        continue;
      }
      const descriptor = type.fields[jsName(name)];
      if (!descriptor) throw new DataException(`Cannot find field with name ${name}`);
      const converted = this.toProtoValue(field.schema, descriptor, fieldValue);
      if (converted !== null && !isImplicitDefault(descriptor, converted)) out[descriptor.name] = converted;
    }
    return out;
  }

  private unionToMessage(schema: Schema, type: protobuf.Type, value: unknown): [string, unknown] {
    if (!(value instanceof Struct) || !value.schema.equals(schema))
      throw new DataException("Mismatching struct schema");
    for (const field of schema.fields) {
      const member = this.options.ignoreDefaultForNullables ? value.getWithoutDefault(field.name) : value.get(field);
      if (member === null || member === undefined) continue;
      const name = this.scrubName(field.name);
      const descriptor = type.fields[jsName(name)];
      if (!descriptor) throw new DataException(`Cannot find field with name ${name}`);
      return [descriptor.name, this.toProtoValue(field.schema, descriptor, member)];
    }
    throw new DataException("Cannot find non-null field");
  }

  /** A field's value (a list for a repeated field) as protobufjs encodes it. */
  private toProtoValue(schema: Schema, field: protobuf.Field, value: unknown): unknown {
    if (value === null || value === undefined) return null;
    const invalid = (): never => {
      throw new DataException(`Invalid type for ${schema.type}: ${javaClassName(value)}`);
    };
    switch (schema.name) {
      case Decimal.LOGICAL_NAME: {
        if (!(value instanceof BigDecimal))
          throw new DataException(`Invalid type for Decimal, expected BigDecimal but was ${javaClassName(value)}`);
        return { value: twosComplementBytes(value.unscaled), precision: value.precision(), scale: value.scale };
      }
      case ConnectDate.LOGICAL_NAME: {
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Date, expected Date but was ${javaClassName(value)}`);
        ConnectDate.fromLogical(schema, value); // rejects a time of day
        return { year: value.getUTCFullYear(), month: value.getUTCMonth() + 1, day: value.getUTCDate() };
      }
      case Time.LOGICAL_NAME: {
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Time, expected Date but was ${javaClassName(value)}`);
        const ms = value.getTime();
        if (ms < 0 || ms > 86_400_000)
          throw new DataException("Time values must use number of millis greater than 0 and less than 86400000");
        return {
          hours: value.getUTCHours(),
          minutes: value.getUTCMinutes(),
          seconds: value.getUTCSeconds(),
          nanos: value.getUTCMilliseconds() * 1_000_000,
        };
      }
      case Timestamp.LOGICAL_NAME: {
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Timestamp, expected Date but was ${javaClassName(value)}`);
        const ms = Timestamp.fromLogical(schema, value);
        const seconds = ms >= 0n ? ms / 1000n : -((-ms + 999n) / 1000n);
        return { seconds: String(seconds), nanos: Number(ms - seconds * 1000n) * 1_000_000 };
      }
    }
    switch (schema.type) {
      case "INT8":
      case "INT16":
      case "INT32":
        if (!acceptsPlain(schema.type, value)) invalid();
        return value;
      case "INT64": {
        if (!acceptsPlain("INT64", value)) invalid();
        const n = BigInt(value as number | bigint);
        const protoType = schema.parameters?.get(PROTOBUF_TYPE_PROP);
        // uint32/fixed32 hold the low 32 bits (Java's (int) cast, read back unsigned).
        if (protoType === "uint32" || protoType === "fixed32") return Number(BigInt.asUintN(32, n));
        return String(protoType === "uint64" || protoType === "fixed64" ? BigInt.asUintN(64, n) : n);
      }
      case "FLOAT32":
      case "FLOAT64":
        if (typeof value !== "number") invalid();
        return value;
      case "BOOLEAN":
        if (typeof value !== "boolean") invalid();
        return value;
      case "STRING": {
        if (typeof value !== "string") invalid();
        const enumType = field.resolvedType;
        if (enumType && "values" in enumType) {
          const number = (enumType as protobuf.Enum).values[value as string];
          if (number === undefined)
            throw new DataException(`Unknown symbol ${value as string} of enum ${enumType.name}`);
          return number;
        }
        return value;
      }
      case "BYTES":
        if (!(value instanceof Uint8Array)) invalid();
        return value;
      case "ARRAY": {
        if (!Array.isArray(value)) invalid();
        // An empty list is no field at all.
        if ((value as unknown[]).length === 0) return null;
        return (value as unknown[]).map((e) => this.toProtoValue(schema.valueSchema!, field, e));
      }
      case "MAP": {
        if (!(value instanceof Map) && !isPlainObject(value)) invalid();
        const entryType = field.resolvedType as protobuf.Type | null;
        if (!entryType || !("fields" in entryType))
          throw new DataException(`Field ${field.name} is not a map entry message`);
        const keyField = entryType.fields[KEY_FIELD];
        const valueField = entryType.fields[VALUE_FIELD];
        if (!keyField || !valueField) throw new DataException(`Map entry ${entryType.name} needs key and value fields`);
        return [...mapEntries(value as Map<unknown, unknown>)].map(([k, v]) => {
          const entry: Record<string, unknown> = {};
          const key = this.toProtoValue(schema.keySchema!, keyField, k);
          const val = this.toProtoValue(schema.valueSchema!, valueField, v);
          if (key !== null) entry[KEY_FIELD] = key;
          if (val !== null) entry[VALUE_FIELD] = val;
          return entry;
        });
      }
      case "STRUCT": {
        const messageType = field.resolvedType;
        if (!messageType || !("fields" in messageType)) throw new DataException(`Field ${field.name} is not a message`);
        return this.structToMessage(schema, messageType as protobuf.Type, value);
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Message type → Connect schema

  /** The Connect schema of a message type (`parsed` supplies the field options protobufjs drops). */
  toConnectSchema(parsed: ProtobufParsedSchema, type: protobuf.Type): Schema {
    const cached = this.toConnectCache.get(type);
    if (cached) return cached;
    const unwrapped = this.options.useWrapperForRawPrimitives ? WRAPPERS[fullName(type)] : undefined;
    const schema = unwrapped
      ? unwrapped().build()
      : this.structSchema(new ElementIndex(parsed), type, new Set()).build();
    this.toConnectCache.set(type, schema);
    return schema;
  }

  private structSchema(index: ElementIndex, type: protobuf.Type, inProgress: Set<protobuf.Type>): SchemaBuilder {
    if (inProgress.has(type))
      throw new DataException(`Recursive message ${fullName(type)} cannot be represented as a Connect schema`);
    inProgress.add(type);
    const builder = SchemaBuilder.struct().name(this.options.enhancedSchemaSupport ? fullName(type) : type.name);
    for (const f of type.fieldsArray) this.protoNames.set(f, index.fieldName(f));
    for (const [i, oneOf] of realOneOfs(type).entries()) {
      const oneOfName = index.oneOfName(type, oneOf);
      this.protoNames.set(oneOf, oneOfName);
      if (this.options.flattenUnions) {
        for (const f of oneOf.fieldsArray)
          builder.field(this.protoName(f), this.fieldSchema(index, f, true, inProgress));
        continue;
      }
      const union = SchemaBuilder.struct();
      if (this.options.generalizedSumTypeSupport) union.name(oneOfName).parameter(GENERALIZED_TYPE_UNION, oneOfName);
      else
        union.name(
          PROTOBUF_TYPE_UNION_PREFIX +
            (this.options.enhancedSchemaSupport ? `${fullName(type)}.${oneOfName}` : oneOfName),
        );
      for (const f of oneOf.fieldsArray) union.field(this.protoName(f), this.fieldSchema(index, f, true, inProgress));
      builder.field(this.unionFieldName(oneOf, i), union.optional().build());
    }
    for (const f of type.fieldsArray) {
      if (f.partOf && !isSynthetic(f.partOf)) continue;
      builder.field(this.protoName(f), this.fieldSchema(index, f, false, inProgress));
    }
    inProgress.delete(type);
    return builder;
  }

  private unionFieldName(oneOf: protobuf.OneOf, index: number): string {
    const name = this.protoName(oneOf);
    return this.options.generateIndexForUnions ? `${name}_${index}` : name;
  }

  private protoName(obj: protobuf.Field | protobuf.OneOf): string {
    return this.protoNames.get(obj) ?? obj.name;
  }

  private fieldSchema(
    index: ElementIndex,
    field: protobuf.Field,
    oneofMember: boolean,
    inProgress: Set<protobuf.Type>,
  ): Schema {
    const params = index.metaParams(field);
    if (index.isProto2Optional(field)) this.proto2Optional.add(field);
    let builder: SchemaBuilder;
    const mapField = field as protobuf.Field & { map?: boolean; keyType?: string };
    if (mapField.map) {
      // map<K, V>: named after its entry message, as protoc names it (my_map → MyMapEntry).
      const entryName =
        this.protoName(field)
          .replace(/(^|_)([a-z])/g, (_, __: string, c: string) => c.toUpperCase())
          .replace(/_/g, "") + MAP_ENTRY_SUFFIX;
      const keyField = {
        name: KEY_FIELD,
        type: mapField.keyType!,
        id: 1,
        repeated: false,
        resolvedType: null,
      } as unknown as protobuf.Field;
      const valueField = {
        name: VALUE_FIELD,
        type: field.type,
        id: 2,
        repeated: false,
        resolvedType: field.resolvedType,
      } as unknown as protobuf.Field;
      builder = SchemaBuilder.map(
        this.fieldSchema(index, keyField, false, inProgress),
        this.fieldSchema(index, valueField, false, inProgress),
      ).name(toMapField(entryName));
    } else {
      builder = this.typeSchema(index, field, params, inProgress);
      if (field.repeated && builder.type !== "MAP")
        builder = SchemaBuilder.array(builder.optional().build()).optional();
    }
    if (oneofMember) {
      if (!builder.isOptional) builder.optional();
    } else if (this.options.useOptionalForNullables) {
      if (field.options?.proto3_optional === true && !builder.isOptional) builder.optional();
    } else if (!builder.isOptional) builder.optional();
    builder.parameter(PROTOBUF_TYPE_TAG, String(field.id));
    return builder.build();
  }

  private typeSchema(
    index: ElementIndex,
    field: protobuf.Field,
    params: ReadonlyMap<string, string>,
    inProgress: Set<protobuf.Type>,
  ): SchemaBuilder {
    switch (field.type) {
      case "int32":
      case "sint32":
      case "sfixed32": {
        const connectType = params.get(CONNECT_TYPE_PROP);
        if (connectType === "int8") return SchemaBuilder.int8();
        if (connectType === "int16") return SchemaBuilder.int16();
        const builder = SchemaBuilder.int32();
        if (field.type !== "int32") builder.parameter(PROTOBUF_TYPE_PROP, field.type);
        return builder;
      }
      case "uint32":
      case "fixed32":
      case "int64":
      case "uint64":
      case "sint64":
      case "fixed64":
      case "sfixed64": {
        const builder = SchemaBuilder.int64();
        if (field.type !== "int64") builder.parameter(PROTOBUF_TYPE_PROP, field.type);
        return builder;
      }
      case "float":
        return SchemaBuilder.float32();
      case "double":
        return SchemaBuilder.float64();
      case "bool":
        return SchemaBuilder.bool();
      case "string":
        return SchemaBuilder.string();
      case "bytes":
        return SchemaBuilder.bytes();
    }
    const resolved = field.resolvedType;
    if (resolved && "values" in resolved) {
      const enumType = resolved as protobuf.Enum;
      const builder = this.options.useIntForEnums ? SchemaBuilder.int32() : SchemaBuilder.string();
      builder.name(this.options.enhancedSchemaSupport ? fullName(enumType) : enumType.name);
      const paramName = this.options.generalizedSumTypeSupport ? GENERALIZED_TYPE_ENUM : PROTOBUF_TYPE_ENUM;
      builder.parameter(paramName, enumType.name);
      for (const [symbol, number] of Object.entries(enumType.values))
        builder.parameter(`${paramName}.${symbol}`, String(number));
      return builder.optional();
    }
    if (!resolved || !("fields" in resolved)) throw new DataException(`Unknown Connect schema type: ${field.type}`);
    const messageType = resolved as protobuf.Type;
    let builder: SchemaBuilder;
    switch (fullName(messageType)) {
      case DECIMAL_TYPE: {
        builder = Decimal.builder(parseIntOr(params.get(PROTOBUF_SCALE_PROP), 0));
        const precision = params.get(PROTOBUF_PRECISION_PROP);
        if (precision !== undefined && /^[+-]?\d+$/.test(precision))
          builder.parameter(CONNECT_PRECISION_PROP, String(Number(precision)));
        break;
      }
      case DATE_TYPE:
        builder = ConnectDate.builder();
        break;
      case TIME_TYPE:
        builder = Time.builder();
        break;
      case TIMESTAMP_TYPE:
        builder = Timestamp.builder();
        break;
      default:
        builder =
          field.repeated && isMapEntryType(messageType)
            ? this.entrySchema(index, messageType, inProgress)
            : this.structSchema(index, messageType, inProgress);
    }
    return builder.optional();
  }

  /** A repeated XEntry message with key and value fields: a Connect map. */
  private entrySchema(index: ElementIndex, entry: protobuf.Type, inProgress: Set<protobuf.Type>): SchemaBuilder {
    const [key, value] = entry.fieldsArray;
    return SchemaBuilder.map(
      this.fieldSchema(index, key!, false, inProgress),
      this.fieldSchema(index, value!, false, inProgress),
    ).name(toMapField(this.options.enhancedSchemaSupport ? fullName(entry) : entry.name));
  }

  // ------------------------------------------------------------------------------------------
  // Message → Connect value

  /** A decoded message as the Connect value of `schema` (which toConnectSchema gave for its type). */
  toConnectData(schema: Schema, type: protobuf.Type, message: Record<string, unknown>): unknown {
    if (schema.type !== "STRUCT") {
      // A root wrapper message read as its primitive.
      const valueField = type.fields[VALUE_FIELD]!;
      return this.toConnectValue(schema, valueField, message[VALUE_FIELD]);
    }
    return this.messageToStruct(schema, type, message);
  }

  private messageToStruct(schema: Schema, type: protobuf.Type, message: Record<string, unknown>): Struct {
    const struct = new Struct(schema);
    for (const [i, oneOf] of realOneOfs(type).entries()) {
      const set = message[oneOf.name];
      if (typeof set !== "string") continue;
      const member = type.fields[set]!;
      const value = message[set];
      if (value === null || value === undefined) continue;
      if (this.options.flattenUnions) {
        this.putField(struct, schema, member, value);
        continue;
      }
      const unionField = schema.field(this.unionFieldName(oneOf, i));
      if (!unionField) throw new DataException(`No union field for oneof ${oneOf.name}`);
      const memberField = unionField.schema.field(this.protoName(member))!;
      struct.put(
        unionField,
        new Struct(unionField.schema).put(memberField, this.toConnectValue(memberField.schema, member, value)),
      );
    }
    for (const field of type.fieldsArray) {
      if (field.partOf && !isSynthetic(field.partOf)) continue;
      const present = Object.hasOwn(message, field.name) && message[field.name] !== null;
      const primitiveOrRepeated =
        field.resolvedType === null ||
        !("fields" in field.resolvedType) ||
        field.repeated ||
        (field as { map?: boolean }).map === true;
      // A field with explicit presence (proto3 `optional`, proto2 `optional`) that is unset is null.
      const explicitPresence = field.options?.proto3_optional === true || this.proto2Optional.has(field);
      if ((primitiveOrRepeated && !explicitPresence) || this.options.generateStructForNulls || present)
        this.putField(struct, schema, field, message[field.name]);
    }
    return struct;
  }

  private putField(struct: Struct, schema: Schema, field: protobuf.Field, value: unknown): void {
    const connectField = schema.field(this.protoName(field));
    if (!connectField) throw new DataException(`No Connect field ${this.protoName(field)}`);
    struct.put(connectField, this.toConnectValue(connectField.schema, field, value));
  }

  private toConnectValue(schema: Schema, field: protobuf.Field, value: unknown): unknown {
    if (value === null || value === undefined) {
      if (schema.type === "STRUCT" && this.options.generateStructForNulls) {
        const type = field.resolvedType as protobuf.Type;
        return this.messageToStruct(schema, type, {});
      }
      return null;
    }
    const message = value as Record<string, unknown>;
    switch (schema.name) {
      case Decimal.LOGICAL_NAME: {
        const bytes = message.value instanceof Uint8Array ? message.value : new Uint8Array(0);
        return new BigDecimal(fromTwosComplement(bytes), toInt(message.scale));
      }
      case ConnectDate.LOGICAL_NAME: {
        const date = new Date(0);
        date.setUTCFullYear(toInt(message.year), toInt(message.month) - 1, toInt(message.day));
        return date;
      }
      case Time.LOGICAL_NAME: {
        const ms =
          ((toInt(message.hours) * 60 + toInt(message.minutes)) * 60 + toInt(message.seconds)) * 1000 +
          Math.trunc(toInt(message.nanos) / 1_000_000);
        return new Date(ms);
      }
      case Timestamp.LOGICAL_NAME:
        return Timestamp.toLogical(
          schema,
          toBigInt(message.seconds) * 1000n + BigInt(Math.trunc(toInt(message.nanos) / 1_000_000)),
        );
    }
    const resolved = field.resolvedType;
    // A wrapper message (google.protobuf.*Value) read as its primitive.
    const unwrap = (v: unknown): unknown =>
      resolved &&
      "fields" in resolved &&
      WRAPPERS[fullName(resolved as protobuf.Type)] &&
      typeof v === "object" &&
      v !== null &&
      !(v instanceof Uint8Array)
        ? (v as Record<string, unknown>).value
        : v;
    switch (schema.type) {
      case "INT8":
        return (toInt(unwrap(value)) << 24) >> 24;
      case "INT16":
        return (toInt(unwrap(value)) << 16) >> 16;
      case "INT32":
        return toInt(unwrap(value));
      case "INT64": {
        const v = unwrap(value);
        // protobufjs gives uint32/fixed32 as (unsigned) numbers and 64-bit types as Long or number.
        return typeof v === "number" && (field.type === "int32" || field.type === "sint32" || field.type === "sfixed32")
          ? BigInt(v >>> 0)
          : toBigInt(v);
      }
      case "FLOAT32":
        return Math.fround(Number(unwrap(value)));
      case "FLOAT64":
        return Number(unwrap(value));
      case "BOOLEAN":
        return unwrap(value) === true;
      case "STRING": {
        const v = unwrap(value);
        if (typeof v === "string") return v;
        if (typeof v === "number" && resolved && "values" in resolved)
          return (resolved as protobuf.Enum).valuesById[v] ?? String(v);
        throw new DataException(
          `Invalid class for string type, expecting String or CharSequence but found ${javaClassName(v)}`,
        );
      }
      case "BYTES": {
        const v = unwrap(value);
        // An unset bytes field reads as protobufjs's default, an empty array.
        if (Array.isArray(v) && v.length === 0) return new Uint8Array(0);
        if (!(v instanceof Uint8Array))
          throw new DataException(
            `Invalid class for bytes type, expecting byte[], ByteBuffer, or ByteString but found ${javaClassName(v)}`,
          );
        return new Uint8Array(v);
      }
      case "ARRAY":
        return (value as unknown[]).map((e) => this.toConnectValue(schema.valueSchema!, field, e));
      case "MAP": {
        const out = new Map<unknown, unknown>();
        const mapField = field as protobuf.Field & { map?: boolean; keyType?: string };
        if (mapField.map) {
          // protobufjs keys map<> entries by their text.
          const keyField = {
            name: KEY_FIELD,
            type: mapField.keyType!,
            resolvedType: null,
          } as unknown as protobuf.Field;
          for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
            out.set(
              this.toConnectValue(schema.keySchema!, keyField, mapKey(mapField.keyType!, k)),
              this.toConnectValue(schema.valueSchema!, field, v),
            );
          }
        } else {
          const entryType = resolved as protobuf.Type;
          const keyField = entryType.fields[KEY_FIELD]!;
          const valueField = entryType.fields[VALUE_FIELD]!;
          for (const entry of value as Record<string, unknown>[]) {
            out.set(
              this.toConnectValue(schema.keySchema!, keyField, entry[KEY_FIELD]),
              this.toConnectValue(schema.valueSchema!, valueField, entry[VALUE_FIELD]),
            );
          }
        }
        return out;
      }
      case "STRUCT":
        return this.messageToStruct(schema, resolved as protobuf.Type, message);
    }
  }
}

/** What protobufjs does not keep: `(confluent.field_meta)` params and proto2 labels, by message and field. */
class ElementIndex {
  private readonly messages = new Map<string, MessageElement>();
  private readonly proto2 = new Set<MessageElement>();

  constructor(parsed: ProtobufParsedSchema) {
    const files = [parsed.files.main, ...parsed.files.dependencies.values()];
    for (const file of files) {
      const walk = (types: readonly (MessageElement | { kind: "enum" })[], prefix: string): void => {
        for (const t of types) {
          if (t.kind !== "message") continue;
          const m = t as MessageElement;
          this.messages.set(prefix + m.name, m);
          if (file.syntax !== "proto3") this.proto2.add(m);
          walk(m.nestedTypes, `${prefix}${m.name}.`);
        }
      };
      walk(file.types, file.packageName ? `${file.packageName}.` : "");
    }
  }

  private element(field: protobuf.Field): { message: MessageElement; field: FieldElement } | undefined {
    const parent = field.parent;
    if (!parent || !("fields" in parent)) return undefined;
    const message = this.messages.get(fullName(parent as protobuf.Type));
    const element =
      message &&
      [...message.fields, ...message.oneOfs.flatMap((o) => o.fields)].find((f) => jsName(f.name) === field.name);
    return message && element ? { message, field: element } : undefined;
  }

  /** The field's name as the .proto file writes it. */
  fieldName(field: protobuf.Field): string {
    return this.element(field)?.field.name ?? field.name;
  }

  oneOfName(type: protobuf.Type, oneOf: protobuf.OneOf): string {
    return this.messages.get(fullName(type))?.oneOfs.find((o) => jsName(o.name) === oneOf.name)?.name ?? oneOf.name;
  }

  /** A proto2 `optional` field outside any oneof (Confluent's optional.for.proto2, on by default). */
  isProto2Optional(field: protobuf.Field): boolean {
    const found = this.element(field);
    return (
      found !== undefined &&
      this.proto2.has(found.message) &&
      found.field.label === "optional" &&
      !found.message.oneOfs.some((o) => o.fields.includes(found.field))
    );
  }

  metaParams(field: protobuf.Field): ReadonlyMap<string, string> {
    const params = new Map<string, string>();
    const element = this.element(field)?.field;
    const meta = element?.options.find((o) => o.name === FIELD_META && o.kind === "MAP");
    const list = meta && meta.value instanceof Map ? meta.value.get("params") : undefined;
    if (Array.isArray(list)) {
      for (const entry of list) {
        if (!(entry instanceof Map)) continue;
        const k = entry.get(KEY_FIELD);
        const v = entry.get(VALUE_FIELD);
        if (typeof k === "string" && typeof v === "string") params.set(k, v);
      }
    }
    return params;
  }
}

/** `(confluent.field_meta) = { params: [...] }` as Confluent prints it: params in hash order, precision and scale with the value first. */
function metaOption(params: ReadonlyMap<string, string>): OptionElement {
  const list: OptionValue[] = JavaHashKeys.of(params.keys())
    .keys()
    .map((key): OptionMap => {
      const value = params.get(key)!;
      return key === PROTOBUF_PRECISION_PROP || key === PROTOBUF_SCALE_PROP
        ? new Map<string, OptionValue>([
            [VALUE_FIELD, value],
            [KEY_FIELD, key],
          ])
        : new Map<string, OptionValue>([
            [KEY_FIELD, key],
            [VALUE_FIELD, value],
          ]);
    });
  return {
    name: FIELD_META,
    kind: "MAP",
    value: new Map<string, OptionValue>([["params", list]]),
    parenthesized: true,
  };
}

function isUnionSchema(schema: Schema): boolean {
  return (
    (schema.name?.startsWith(PROTOBUF_TYPE_UNION) ?? false) || (schema.parameters?.has(GENERALIZED_TYPE_UNION) ?? false)
  );
}

/** proto3 leaves a scalar equal to its default off the wire (implicit presence), as Java's DynamicMessage does. */
function isImplicitDefault(field: protobuf.Field, value: unknown): boolean {
  if (field.repeated || field.partOf || field.options?.proto3_optional === true) return false;
  if (Object.is(value, 0) || value === false || value === "") return true;
  // 64-bit integers are handed over as decimal strings.
  if (value === "0" && /64$/.test(field.type)) return true;
  return value instanceof Uint8Array && value.length === 0;
}

/** The name protobufjs gives a field or oneof (camelCase). */
function jsName(protoName: string): string {
  return protobuf.util.camelCase(protoName);
}

function realOneOfs(type: protobuf.Type): protobuf.OneOf[] {
  return type.oneofsArray.filter((o) => !isSynthetic(o));
}

/** The oneof protobufjs makes for a proto3 `optional` field. */
function isSynthetic(oneOf: protobuf.OneOf): boolean {
  return oneOf.fieldsArray.length === 1 && oneOf.fieldsArray[0]!.options?.proto3_optional === true;
}

function isMapEntryType(type: protobuf.Type): boolean {
  const fields = type.fieldsArray;
  return (
    type.name.endsWith(MAP_ENTRY_SUFFIX) &&
    fields.length === 2 &&
    fields[0]!.name === KEY_FIELD &&
    fields[1]!.name === VALUE_FIELD &&
    !fields[0]!.repeated &&
    !fields[1]!.repeated
  );
}

function fullName(obj: protobuf.ReflectionObject): string {
  return obj.fullName.startsWith(".") ? obj.fullName.slice(1) : obj.fullName;
}

/** ProtobufSchema.toMapEntry: snake_case names become UpperCamel first. */
function toMapEntry(name: string): string {
  const camel = name.includes("_")
    ? name
        .toLowerCase()
        .split("_")
        .map((p) => (p ? p[0]!.toUpperCase() + p.slice(1) : ""))
        .join("")
    : name;
  return camel + MAP_ENTRY_SUFFIX;
}

/** ProtobufSchema.toMapField: FooBarEntry → foo_bar. */
function toMapField(name: string): string {
  const parts = name.split(".");
  let last = parts[parts.length - 1]!;
  if (last.endsWith(MAP_ENTRY_SUFFIX)) {
    last = last
      .slice(0, -MAP_ENTRY_SUFFIX.length)
      .replace(/(?!^)([A-Z])/g, "_$1")
      .toLowerCase();
    parts[parts.length - 1] = last;
  }
  return parts.join(".");
}

function mapKey(keyType: string, text: string): unknown {
  if (keyType === "bool") return text === "true";
  if (keyType === "string") return text;
  return /64$/.test(keyType) ? BigInt(text) : Number(text);
}

function toInt(v: unknown): number {
  if (typeof v === "number") return v | 0;
  if (typeof v === "bigint") return Number(BigInt.asIntN(32, v));
  if (v !== null && typeof v === "object" && "low" in v) return (v as { low: number }).low | 0;
  return 0;
}

/** A protobufjs 64-bit value (Long, number or string) as bigint. */
function toBigInt(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "string") return BigInt(v);
  if (v !== null && typeof v === "object" && "low" in v) return BigInt((v as { toString(): string }).toString());
  return 0n;
}

function parseIntOr(text: string | undefined, fallback: number): number {
  return text !== undefined && /^[+-]?\d+$/.test(text) ? Number(text) : fallback;
}
