// org.apache.kafka.connect.json.JsonConverter. With schemas.enable each record is the envelope
// {"schema":…,"payload":…}, written byte for byte as Kafka writes it (key order of asJsonSchema,
// Jackson's escaping and Java's number formatting); without, the bare payload. Reading follows
// Kafka's rules, quirks included (e.g. a string where an int32 is expected reads as 0), so that
// records round-trip between Sluice and JVM workers unchanged.
import { SettingsDefinition } from "../../platform/settings.ts";
import { decimalFormat } from "./data-config.ts";
import { asBuffer } from "../../platform/buffers.ts";
import { readPayload, SLOW } from "./json-payload.ts";
import { LruCache } from "../../platform/lru.ts";
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
  acceptsPlain,
  mapEntries,
  SchemaBuilder,
  type Schema,
  type Type,
  Struct,
} from "../api/data/index.ts";
import {
  SchemaAndValue,
  settingStrings,
  type Converter,
  type ConverterConfig,
  type HeaderConverter,
} from "../api/converter.ts";
import {
  binaryValue,
  booleanValue,
  decimalValue,
  doubleValue,
  elementsOf,
  floatValue,
  intValue,
  isInt,
  isIntegral,
  JsonNumber,
  JsonObject,
  longValue,
  nodeType,
  readJson,
  readJsonString,
  textValue,
  type JsonNode,
} from "./json-tree.ts";
import {
  base64,
  jsonNestingDepth,
  jsonString,
  MAX_NESTING_DEPTH,
  MAX_WRITE_NESTING_DEPTH,
  utf8Bytes,
} from "../../jvm/json-text.ts";
import { ownEntry } from "../../platform/own.ts";

export const jsonConverterSettings = new SettingsDefinition([
  {
    name: "schemas.enable",
    type: "boolean",
    default: true,
    importance: "high",
    doc: "Include schemas within each of the serialized values and keys.",
  },
  {
    name: "schemas.cache.size",
    type: "int",
    default: 1000,
    min: 0,
    importance: "high",
    doc: "The maximum number of schemas that can be cached in this converter instance.",
  },
  decimalFormat,
  {
    name: "replace.null.with.default",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.",
  },
  {
    name: "converter.type",
    type: "string",
    oneOf: ["key", "value", "header"],
    importance: "low",
    doc: "How this converter will be used (set by the runtime).",
  },
]);

/**
 * Bytes in Confluent's wire format (magic byte 0, a 4-byte schema id) were written by a serializer of the
 * schema registry: JsonConverter cannot read them, and the converter that can is named.
 */
function confluentFramed(value: Uint8Array): Error | undefined {
  if (value.length < 5 || value[0] !== 0) return undefined;
  const id = new DataView(value.buffer, value.byteOffset, value.byteLength).getInt32(1);
  let converter = "io.confluent.connect.avro.AvroConverter or io.confluent.connect.protobuf.ProtobufConverter";
  try {
    JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(value.subarray(5)));
    converter = "io.confluent.connect.json.JsonSchemaConverter";
  } catch {
    // Not JSON after the schema id: Avro or Protobuf (the registry's GET /schemas/ids/{id} says which).
  }
  return new Error(
    `the bytes start with Confluent's magic byte and schema id ${id}: a schema registry serializer wrote them, and JsonConverter cannot read them; use ${converter} with schema.registry.url`,
  );
}

/** Whether JSON text nests deeper than `limit` (a text shorter than two brackets a level cannot). */
const nestedDeeper = (text: string, limit: number) => text.length > 2 * limit && jsonNestingDepth(text, limit) > limit;

/** How JsonConverter's envelope starts, and what follows its schema. */
const ENVELOPE_TEXT = '{"schema":';
const ENVELOPE_HEAD = Buffer.from(ENVELOPE_TEXT);
const ENVELOPE_MID = Buffer.from(',"payload":');

const ENVELOPE_ERROR =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';

const JSON_TYPE_NAMES: Record<Type, string> = {
  INT8: "int8",
  INT16: "int16",
  INT32: "int32",
  INT64: "int64",
  FLOAT32: "float",
  FLOAT64: "double",
  BOOLEAN: "boolean",
  STRING: "string",
  BYTES: "bytes",
  ARRAY: "array",
  MAP: "map",
  STRUCT: "struct",
};

const BUILDERS: Record<string, () => SchemaBuilder> = {
  boolean: SchemaBuilder.bool,
  int8: SchemaBuilder.int8,
  int16: SchemaBuilder.int16,
  int32: SchemaBuilder.int32,
  int64: SchemaBuilder.int64,
  float: SchemaBuilder.float32,
  double: SchemaBuilder.float64,
  bytes: SchemaBuilder.bytes,
  string: SchemaBuilder.string,
};

/** Room for a payload's UTF-8 (at most 3 bytes per UTF-16 unit). */
const PAYLOAD_SCRATCH = Buffer.allocUnsafe(64 * 1024);

export class JsonConverter implements Converter, HeaderConverter {
  private schemasEnabled = true;
  private decimalNumeric = false;
  private replaceNullWithDefault = true;
  private fromConnectCache = new LruCache<Schema, string>(1000);
  private toConnectCache = new LruCache<string, Schema>(1000);
  private readonly deepSchemas = new WeakMap<Schema, boolean>();
  /** Schemas read from envelopes, by the length of their bytes there (see knownEnvelope). */
  private envelopeSchemas = new LruCache<number, { bytes: Buffer; schema: Schema }>(1000);
  /** `{"schema":S,"payload":` as bytes, by schema: the part of each written envelope that repeats. */
  private envelopeHeads = new LruCache<Schema, Buffer>(1000);

  configure(config: ConverterConfig, isKey = false): void {
    const settings = jsonConverterSettings.parse(
      settingStrings({ ...config, "converter.type": isKey ? "key" : "value" }),
    ).values;
    this.schemasEnabled = settings.boolean("schemas.enable");
    this.decimalNumeric = settings.string("decimal.format") === "NUMERIC";
    this.replaceNullWithDefault = settings.boolean("replace.null.with.default");
    const cacheSize = settings.int("schemas.cache.size");
    this.fromConnectCache = new LruCache(cacheSize);
    this.toConnectCache = new LruCache(cacheSize);
    this.envelopeSchemas = new LruCache(cacheSize);
    this.envelopeHeads = new LruCache(cacheSize);
  }

  config(): SettingsDefinition {
    return jsonConverterSettings;
  }

  /**
   * The JSON as UTF-8 bytes. With a schema, the envelope's head is the schema's cached bytes and only the
   * payload is encoded, into the same Buffer (a Buffer, so the Kafka client takes it without a copy).
   */
  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (schema === null && (value === null || value === undefined)) return null;
    const payload = this.toJson(schema, value);
    const schemaJson = !this.schemasEnabled ? undefined : schema === null ? "null" : this.asJsonSchema(schema)!;
    // Jackson refuses to write documents nested deeper than 1000. The envelope adds a level to the deeper
    // of its two parts; the schema's part is measured once per schema, not in every record.
    const limit = MAX_WRITE_NESTING_DEPTH - (schemaJson === undefined ? 0 : 1);
    if (
      nestedDeeper(payload, limit) ||
      (schema !== null && schemaJson !== undefined && this.deepSchema(schema, schemaJson, limit))
    )
      throw new DataException("Converting Kafka Connect data to byte[] failed due to serialization error: ", {
        cause: new Error(`Document nesting depth exceeds the maximum allowed (${MAX_WRITE_NESTING_DEPTH})`),
      });
    // jsonString leaves no lone surrogate in the text, so Buffer's UTF-8 replaces nothing (as utf8Bytes).
    if (schemaJson === undefined) return Buffer.from(payload);
    if (schema === null) return Buffer.from(`{"schema":null,"payload":${payload}}`);
    let head = this.envelopeHeads.get(schema);
    if (head === undefined) this.envelopeHeads.set(schema, (head = Buffer.from(`{"schema":${schemaJson},"payload":`)));
    let bytes: Buffer;
    if (payload.length * 3 <= PAYLOAD_SCRATCH.length) {
      // Encoded once into scratch space (no separate pass to measure its UTF-8 length), then copied.
      const size = PAYLOAD_SCRATCH.write(payload, 0);
      bytes = Buffer.allocUnsafe(head.length + size + 1);
      PAYLOAD_SCRATCH.copy(bytes, head.length, 0, size);
    } else {
      bytes = Buffer.allocUnsafe(head.length + Buffer.byteLength(payload) + 1);
      bytes.write(payload, head.length);
    }
    head.copy(bytes);
    bytes[bytes.length - 1] = 0x7d; // }
    return bytes;
  }

  toConnectData(_topic: string, value: Uint8Array | null): SchemaAndValue {
    if (value === null) return SchemaAndValue.NULL;
    const known = this.schemasEnabled ? this.knownEnvelope(value) : undefined;
    if (known) return known;
    let read: ReturnType<typeof readJson>;
    try {
      read = readJson(value);
    } catch (e) {
      throw new DataException("Converting byte[] to Kafka Connect data failed due to serialization error: ", {
        cause: confluentFramed(value) ?? e,
      });
    }
    const { node, text } = read;
    let schemaNode: JsonNode | undefined = null;
    let payload: JsonNode | undefined = node;
    if (this.schemasEnabled) {
      if (
        !(node instanceof JsonObject) ||
        node.fields.size !== 2 ||
        !node.fields.has("schema") ||
        !node.fields.has("payload")
      )
        throw new DataException(ENVELOPE_ERROR);
      schemaNode = node.fields.get("schema");
      payload = node.fields.get("payload");
    }
    const schema = this.schemaFromNode(schemaNode, text);
    const converted = { schema, value: this.toConnect(schema, payload) };
    if (
      schema !== null &&
      schemaNode instanceof JsonObject &&
      schemaNode.start === ENVELOPE_HEAD.length &&
      text.startsWith(ENVELOPE_TEXT)
    ) {
      const bytes = Buffer.from(text.slice(schemaNode.start, schemaNode.end));
      this.envelopeSchemas.set(bytes.length, { bytes, schema });
    }
    return converted;
  }

  /**
   * An envelope as JsonConverter writes it, `{"schema":S,"payload":P}`, whose S is byte for byte a schema
   * read before: only P is read. What this cannot be sure of (another layout, P not one whole value,
   * P nested as deep as Jackson's limit) is left to the full read, which answers as before.
   */
  private knownEnvelope(value: Uint8Array): SchemaAndValue | undefined {
    // Compared in place: a subarray is an object per record.
    const bytes = asBuffer(value);
    const head = ENVELOPE_HEAD.length;
    if (bytes.length <= head || bytes[bytes.length - 1] !== 0x7d || ENVELOPE_HEAD.compare(bytes, 0, head) !== 0) return;
    const mid = bytes.indexOf(ENVELOPE_MID, head);
    if (mid < 0) return;
    const known = this.envelopeSchemas.get(mid - head);
    if (known?.bytes.compare(bytes, head, mid) !== 0) return;
    // Buffer's decoding replaces bad UTF-8, which the full read refuses.
    const text = bytes.toString("utf8", mid + ENVELOPE_MID.length, bytes.length - 1);
    if (text.includes("\uFFFD")) return;
    // One level deeper inside the envelope: at the limit, the full read says so.
    if (text.length >= 2 * (MAX_NESTING_DEPTH - 1) && jsonNestingDepth(text, MAX_NESTING_DEPTH) >= MAX_NESTING_DEPTH)
      return;
    const fast = readPayload(known.schema, text, this.replaceNullWithDefault);
    if (fast !== SLOW) return { schema: known.schema, value: fast };
    let node: JsonNode | undefined;
    try {
      node = readJsonString(text, true);
    } catch {
      return;
    }
    if (node === undefined) return;
    return { schema: known.schema, value: this.toConnect(known.schema, node) };
  }

  fromConnectHeader(topic: string, _headerKey: string, schema: Schema | null, value: unknown): Uint8Array | null {
    return this.fromConnectData(topic, schema, value);
  }

  toConnectHeader(topic: string, _headerKey: string, value: Uint8Array | null): SchemaAndValue {
    return this.toConnectData(topic, value);
  }

  close(): void {}

  /** Whether the schema's JSON is nested deeper than `limit`, measured once per schema. */
  private deepSchema(schema: Schema, json: string, limit: number): boolean {
    let deep = this.deepSchemas.get(schema);
    if (deep === undefined) this.deepSchemas.set(schema, (deep = nestedDeeper(json, limit)));
    return deep;
  }

  /** The schema as JsonConverter writes it into the envelope (JSON text). */
  asJsonSchema(schema: Schema | null): string | null {
    if (schema === null) return null;
    const cached = this.fromConnectCache.get(schema);
    if (cached !== undefined) return cached;
    let json = `{"type":"${JSON_TYPE_NAMES[schema.type]}"`;
    switch (schema.type) {
      case "ARRAY":
        json += `,"items":${this.asJsonSchema(schema.valueSchema) ?? "null"}`;
        break;
      case "MAP":
        json += `,"keys":${this.asJsonSchema(schema.keySchema) ?? "null"},"values":${this.asJsonSchema(schema.valueSchema) ?? "null"}`;
        break;
      case "STRUCT":
        // Each field is its schema object with "field" appended last.
        json += `,"fields":[${schema.fields.map((f) => `${this.asJsonSchema(f.schema)!.slice(0, -1)},"field":${jsonString(f.name)}}`).join(",")}]`;
        break;
    }
    json += `,"optional":${schema.optional}`;
    if (schema.name !== null) json += `,"name":${jsonString(schema.name)}`;
    if (schema.version !== null) json += `,"version":${schema.version | 0}`;
    if (schema.doc !== null) json += `,"doc":${jsonString(schema.doc)}`;
    if (schema.parameters !== null)
      json += `,"parameters":{${[...schema.parameters].map(([k, v]) => `${jsonString(k)}:${jsonString(v)}`).join(",")}}`;
    if (schema.defaultValue !== null) json += `,"default":${this.toJson(schema, schema.defaultValue)}`;
    json += "}";
    this.fromConnectCache.set(schema, json);
    return json;
  }

  /** Reads a schema in JsonConverter's JSON form (the envelope's "schema"); null for JSON null. */
  asConnectSchema(json: string): Schema | null {
    let read: ReturnType<typeof readJson>;
    try {
      read = readJson(utf8Bytes(json));
    } catch (e) {
      throw new DataException("Converting byte[] to Kafka Connect data failed due to serialization error: ", {
        cause: e,
      });
    }
    return this.schemaFromNode(read.node ?? null, read.text);
  }

  // ---- Connect → JSON (convertToJson) ----

  private toJson(schema: Schema | null, value: unknown): string {
    if (value === null || value === undefined) {
      if (schema === null) return "null";
      if (schema.defaultValue !== null && this.replaceNullWithDefault) return this.toJson(schema, schema.defaultValue);
      if (schema.optional) return "null";
      throw new DataException("Conversion error: null value for field that is required and has no default value");
    }
    if (schema !== null && schema.name !== null) {
      const logical = this.logicalToJson(schema, schema.name, value);
      if (logical !== undefined) return logical;
    }
    const type = schema === null ? schemalessType(value) : schema.type;
    const invalid = () =>
      new DataException(
        `Invalid type for ${schema === null ? "unknown schema" : schema.type}: ${javaClassName(value)}`,
      );
    switch (type) {
      case "ARRAY": {
        if (!Array.isArray(value)) throw invalid();
        const elementSchema = schema === null ? null : schema.valueSchema;
        let json = "[";
        for (let i = 0; i < value.length; i++) json += (i === 0 ? "" : ",") + this.toJson(elementSchema, value[i]);
        return json + "]";
      }
      case "MAP": {
        if (!(value instanceof Map) && !isPlainObject(value)) throw invalid();
        return this.mapToJson(schema, value);
      }
      case "STRUCT": {
        if (!(value instanceof Struct)) throw invalid();
        if (schema === null || (value.schema !== schema && !value.schema.equals(schema)))
          throw new DataException("Mismatching schema.");
        const fields = schema.fields;
        const names = fieldKeys(schema);
        let json = "{";
        for (let i = 0; i < fields.length; i++)
          json += names[i] + this.toJson(fields[i]!.schema, value.getWithoutDefault(fields[i]!));
        return json + "}";
      }
      default: {
        const json = primitiveJson(type, value);
        if (json !== undefined) return json;
        throw type === "BYTES" ? new DataException(`Invalid type for bytes type: ${javaClassName(value)}`) : invalid();
      }
    }
  }

  /** String-keyed maps become objects, others arrays of [key, value] pairs. */
  private mapToJson(schema: Schema | null, map: Map<unknown, unknown> | Record<string, unknown>): string {
    const keySchema = schema === null ? null : schema.keySchema;
    const valueSchema = schema === null ? null : schema.valueSchema;
    if (schema !== null && keySchema === null) throw new DataException("No schema defined for key of map value");
    const entries = [...mapEntries(map)];
    const objectMode = keySchema === null ? entries.every(([k]) => typeof k === "string") : keySchema.type === "STRING";
    if (!objectMode)
      return `[${entries.map(([k, v]) => `[${this.toJson(keySchema, k)},${this.toJson(valueSchema, v)}]`).join(",")}]`;
    // Jackson's ObjectNode: a repeated key keeps its first position and takes the last value.
    const fields = new Map<string, string>();
    for (const [k, v] of entries) fields.set(asText(this.toJson(keySchema, k)), this.toJson(valueSchema, v));
    return `{${[...fields].map(([k, v]) => `${jsonString(k)}:${v}`).join(",")}}`;
  }

  /** Logical types are chosen by schema name, whatever the schema's type (as in Kafka). */
  private logicalToJson(schema: Schema, name: string, value: unknown): string | undefined {
    switch (name) {
      case Decimal.LOGICAL_NAME:
        if (!(value instanceof BigDecimal))
          throw new DataException(`Invalid type for Decimal, expected BigDecimal but was ${javaClassName(value)}`);
        return this.decimalNumeric ? value.toString() : `"${base64(Decimal.fromLogical(schema, value))}"`;
      case ConnectDate.LOGICAL_NAME:
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Date, expected Date but was ${javaClassName(value)}`);
        return String(ConnectDate.fromLogical(schema, value));
      case Time.LOGICAL_NAME:
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Time, expected Date but was ${javaClassName(value)}`);
        return String(Time.fromLogical(schema, value));
      case Timestamp.LOGICAL_NAME:
        if (!(value instanceof Date))
          throw new DataException(`Invalid type for Timestamp, expected Date but was ${javaClassName(value)}`);
        return String(Timestamp.fromLogical(schema, value));
      default:
        return undefined;
    }
  }

  // ---- JSON → Connect (asConnectSchema, convertToConnect) ----

  private schemaFromNode(node: JsonNode | undefined, text: string): Schema | null {
    if (node === null || node === undefined) return null;
    const key = node instanceof JsonObject ? text.slice(node.start, node.end) : undefined;
    if (key !== undefined) {
      const cached = this.toConnectCache.get(key);
      if (cached !== undefined) return cached;
    }
    const schema = this.buildSchema(node, text);
    if (key !== undefined) this.toConnectCache.set(key, schema);
    return schema;
  }

  private buildSchema(node: JsonNode, text: string): Schema {
    const typeNode = get(node, "type");
    if (typeof typeNode !== "string") throw new DataException("Schema must contain 'type' field");
    let builder: SchemaBuilder;
    switch (typeNode) {
      case "array": {
        const items = get(node, "items");
        if (items === undefined || items === null)
          throw new DataException("Array schema did not specify the element type");
        builder = SchemaBuilder.array(this.schemaFromNode(items, text)!);
        break;
      }
      case "map": {
        const keys = get(node, "keys");
        if (keys === undefined) throw new DataException("Map schema did not specify the key type");
        const values = get(node, "values");
        if (values === undefined) throw new DataException("Map schema did not specify the value type");
        const keySchema = this.schemaFromNode(keys, text);
        const valueSchema = this.schemaFromNode(values, text);
        builder = SchemaBuilder.map(keySchema!, valueSchema!);
        break;
      }
      case "struct": {
        builder = SchemaBuilder.struct();
        const fields = get(node, "fields");
        if (!Array.isArray(fields)) throw new DataException('Struct schema\'s "fields" argument is not an array.');
        for (const field of fields) {
          const fieldName = get(field, "field");
          if (typeof fieldName !== "string")
            throw new DataException("Struct schema's field name not specified properly");
          builder.field(fieldName, this.schemaFromNode(field, text)!);
        }
        break;
      }
      default: {
        const primitive = ownEntry(BUILDERS, typeNode);
        if (primitive === undefined) throw new DataException(`Unknown schema type: ${typeNode}`);
        builder = primitive();
      }
    }
    if (get(node, "optional") === true) builder.optional();
    else builder.required();
    const name = get(node, "name");
    if (typeof name === "string") builder.name(name);
    const version = get(node, "version");
    if (isIntegral(version)) builder.version(intValue(version));
    const doc = get(node, "doc");
    if (typeof doc === "string") builder.doc(doc);
    const parameters = get(node, "parameters");
    if (parameters instanceof JsonObject) {
      for (const [k, v] of parameters.fields) {
        if (typeof v !== "string") throw new DataException("Schema parameters must have string values.");
        builder.parameter(k, v);
      }
    }
    const defaultNode = get(node, "default");
    // Kafka converts the default against the builder as it stands (no default yet).
    if (defaultNode !== undefined) builder.defaultValue(this.toConnect(builder.build(), defaultNode));
    return builder.build();
  }

  private toConnect(schema: Schema | null, node: JsonNode | undefined): unknown {
    let type: Type;
    if (schema !== null) {
      if (node === undefined || node === null) {
        if (schema.defaultValue !== null && this.replaceNullWithDefault) return schema.defaultValue;
        if (schema.optional) return null;
        throw new DataException(`Invalid null value for required ${schema.type} field`);
      }
      type = schema.type;
      if (schema.name !== null) {
        const logical = logicalToConnect(schema, schema.name, node);
        if (logical !== undefined) return logical.value;
      }
    } else {
      if (node === undefined || node === null) return null;
      type = schemalessNodeType(node);
    }
    switch (type) {
      case "BOOLEAN":
        return booleanValue(node);
      case "INT8":
        return (intValue(node) << 24) >> 24;
      case "INT16":
        return (intValue(node) << 16) >> 16;
      case "INT32":
        return intValue(node);
      case "INT64":
        return longValue(node);
      case "FLOAT32":
        return floatValue(node);
      case "FLOAT64":
        return doubleValue(node);
      case "BYTES":
        try {
          return binaryValue(node);
        } catch (e) {
          throw new DataException("Invalid bytes field", { cause: e });
        }
      case "STRING":
        return textValue(node);
      case "ARRAY": {
        const elementSchema = schema === null ? null : schema.valueSchema;
        return elementsOf(node).map((e) => this.toConnect(elementSchema, e));
      }
      case "MAP":
        return this.mapToConnect(schema, node);
      case "STRUCT": {
        if (!(node instanceof JsonObject))
          throw new DataException(`Structs should be encoded as JSON objects, but found ${nodeType(node)}`);
        const struct = new Struct(schema!);
        for (const field of schema!.fields)
          struct.put(field, this.toConnect(field.schema, node.fields.get(field.name)));
        return struct;
      }
    }
  }

  private mapToConnect(schema: Schema | null, node: JsonNode): Map<unknown, unknown> {
    const keySchema = schema === null ? null : schema.keySchema;
    const valueSchema = schema === null ? null : schema.valueSchema;
    const result = new Map<unknown, unknown>();
    if (schema === null || keySchema?.type === "STRING") {
      if (!(node instanceof JsonObject))
        throw new DataException(
          `Maps with string fields should be encoded as JSON objects, but found ${nodeType(node)}`,
        );
      for (const [k, v] of node.fields) result.set(k, this.toConnect(valueSchema, v));
      return result;
    }
    if (keySchema === null) throw new DataException("No schema defined for key of map value");
    if (!Array.isArray(node))
      throw new DataException(
        `Maps with non-string fields should be encoded as JSON array of tuples, but found ${nodeType(node)}`,
      );
    for (const entry of node) {
      if (!Array.isArray(entry))
        throw new DataException(`Found invalid map entry instead of array tuple: ${nodeType(entry)}`);
      if (entry.length !== 2)
        throw new DataException(`Found invalid map entry, expected length 2 but found :${entry.length}`);
      result.set(this.toConnect(keySchema, entry[0]), this.toConnect(valueSchema, entry[1]));
    }
    return result;
  }
}

function logicalToConnect(schema: Schema, name: string, node: JsonNode): { value: unknown } | undefined {
  switch (name) {
    case Decimal.LOGICAL_NAME:
      if (node instanceof JsonNumber) return { value: decimalValue(node) };
      if (typeof node === "string") {
        try {
          return { value: Decimal.toLogical(schema, binaryValue(node)!) };
        } catch (e) {
          throw new DataException("Invalid bytes for Decimal field", { cause: e });
        }
      }
      throw new DataException(
        `Invalid type for Decimal, underlying representation should be numeric or bytes but was ${nodeType(node)}`,
      );
    case ConnectDate.LOGICAL_NAME:
      if (!isInt(node))
        throw new DataException(
          `Invalid type for Date, underlying representation should be integer but was ${nodeType(node)}`,
        );
      return { value: ConnectDate.toLogical(schema, intValue(node)) };
    case Time.LOGICAL_NAME:
      if (!isInt(node))
        throw new DataException(
          `Invalid type for Time, underlying representation should be integer but was ${nodeType(node)}`,
        );
      return { value: Time.toLogical(schema, intValue(node)) };
    case Timestamp.LOGICAL_NAME:
      if (!isIntegral(node))
        throw new DataException(
          `Invalid type for Timestamp, underlying representation should be integral but was ${nodeType(node)}`,
        );
      return { value: Timestamp.toLogical(schema, longValue(node)) };
    default:
      return undefined;
  }
}

/** JsonNode.get(name): a field of an object node, else missing. */
function get(node: JsonNode | undefined, name: string): JsonNode | undefined {
  return node instanceof JsonObject ? node.fields.get(name) : undefined;
}

/** Kafka's inference for schemaless JSON: integers INT64, other numbers FLOAT64, objects MAP. */
function schemalessNodeType(node: JsonNode): Type {
  if (typeof node === "boolean") return "BOOLEAN";
  if (typeof node === "string") return "STRING";
  if (node instanceof JsonNumber) return node.integral ? "INT64" : "FLOAT64";
  return Array.isArray(node) ? "ARRAY" : "MAP";
}

/**
 * ConnectSchema.schemaType(value.getClass()) for the JS representations. Without a schema a number is
 * a double and a bigint a long, the way this converter reads them, so schemaless JSON passes through
 * unchanged (1.0 stays 1.0, 1 stays 1).
 */
/**
 * The JSON text JsonConverter writes for a value of a primitive Connect type (Java's number printing,
 * NaN and infinities as strings, bytes as base64); undefined when the value is not of that type.
 */
export function primitiveJson(type: Exclude<Type, "ARRAY" | "MAP" | "STRUCT">, value: unknown): string | undefined {
  switch (type) {
    case "INT8":
    case "INT16":
    case "INT32":
    case "INT64":
      return acceptsPlain(type, value) ? String(value) : undefined;
    case "FLOAT32":
      if (typeof value !== "number") return undefined;
      return Number.isFinite(value) ? javaFloatToString(value) : `"${javaFloatToString(value)}"`;
    case "FLOAT64":
      if (typeof value !== "number") return undefined;
      return Number.isFinite(value) ? javaDoubleToString(value) : `"${javaDoubleToString(value)}"`;
    case "BOOLEAN":
      return typeof value === "boolean" ? String(value) : undefined;
    case "STRING":
      return typeof value === "string" ? jsonString(value) : undefined;
    case "BYTES":
      return value instanceof Uint8Array ? `"${base64(value)}"` : undefined;
  }
}

const structKeys = new WeakMap<Schema, readonly string[]>();

/** Each field's `"name":` as written in a struct's JSON (with the comma before all but the first), once per schema. */
function fieldKeys(schema: Schema): readonly string[] {
  let keys = structKeys.get(schema);
  if (!keys)
    structKeys.set(schema, (keys = schema.fields.map((f, i) => `${i === 0 ? "" : ","}${jsonString(f.name)}:`)));
  return keys;
}

function schemalessType(value: unknown): Type {
  switch (typeof value) {
    case "string":
      return "STRING";
    case "boolean":
      return "BOOLEAN";
    case "number":
      return "FLOAT64";
    case "bigint":
      if (BigInt.asIntN(64, value) === value) return "INT64";
      break;
    case "object":
      if (value instanceof Uint8Array) return "BYTES";
      if (Array.isArray(value)) return "ARRAY";
      if (value instanceof Map || isPlainObject(value)) return "MAP";
      if (value instanceof Struct) return "STRUCT";
  }
  throw new DataException(`Java class ${javaClassName(value)} does not have corresponding schema type.`);
}

/** Jackson's asText() of a written node, which names an object-mode map key. */
function asText(json: string): string {
  const first = json[0];
  if (first === '"') return JSON.parse(json) as string;
  return first === "[" || first === "{" ? "" : json;
}
