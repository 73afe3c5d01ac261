// Java Avro 1.12's Schema.Parser, with the settings Confluent uses for a schema being registered
// (validateAsNew: strict ASCII names, defaults validated): one ParseContext for a schema and its
// references, so named types of earlier texts are visible to later ones, and forward references
// within one text resolve once it is complete.
import { InvalidSchemaError } from "../format.ts";
import { JavaNumberFormatError, javaParseDouble } from "../../jvm/java-numbers.ts";
import { JsonSyntaxError } from "../../jvm/json-text.ts";
import { canonicalString } from "./canonical.ts";
import { isJsonObject, JsonNumber, parseJson, writeJson, type JsonObject, type JsonValue } from "./json.ts";
import {
  fullNameOf,
  type AvroName,
  type AvroNode,
  type FieldNode,
  type FieldOrder,
  type LogicalTypeInfo,
  type NamedNode,
  type PrimitiveType,
  type RecordNode,
  type UnionNode,
} from "./model.ts";
import { validateDefault } from "./defaults.ts";
import { schemaEquals } from "./equality.ts";

const PRIMITIVES = new Set<string>(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);
const SCHEMA_RESERVED = new Set([
  "doc",
  "fields",
  "items",
  "name",
  "namespace",
  "size",
  "symbols",
  "values",
  "type",
  "aliases",
]);
const ENUM_RESERVED = new Set([...SCHEMA_RESERVED, "default"]);
const FIELD_RESERVED = new Set(["default", "doc", "name", "order", "type", "aliases"]);
const MAX_FIXED_SIZE = 2147483647 - 8; // SystemLimitException.MAX_ARRAY_VM_LIMIT

/** Avro's STRICT_VALIDATOR (what Confluent uses for new schemas); null when valid. */
function strictNameError(name: string | null): string | null {
  if (name === null) return "Null name";
  if (name.length === 0) return "Empty name";
  if (!/^[A-Za-z_]/.test(name)) return `Illegal initial character: ${name}`;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `Illegal character in: ${name}`;
  return null;
}

function validateName(name: string | null): string {
  const err = strictNameError(name);
  if (err !== null) throw new InvalidSchemaError(err);
  return name as string;
}

/** Java's Schema.Name constructor: a dotted name carries its own namespace; "" means none. */
function makeName(name: string, space: string | null): AvroName {
  const lastDot = name.lastIndexOf(".");
  let simple = name;
  if (lastDot >= 0) {
    space = name.slice(0, lastDot);
    simple = name.slice(lastDot + 1);
  }
  validateName(simple);
  if (space === "") space = null;
  return { name: simple, space, full: space === null ? simple : `${space}.${simple}` };
}

function textOf(v: JsonValue | undefined): string | null {
  return typeof v === "string" ? v : null;
}

function requiredText(container: JsonObject, key: string, error: string): string {
  const t = textOf(container.get(key));
  if (t === null) throw new InvalidSchemaError(`${error}: ${writeJson(container)}`);
  return t;
}

function propsOf(obj: JsonObject, reserved: Set<string>): JsonObject {
  const props: JsonObject = new Map();
  for (const [k, v] of obj) if (!reserved.has(k)) props.set(k, v);
  return props;
}

function parseAliasList(node: JsonObject): string[] | null {
  const aliases = node.get("aliases");
  if (aliases === undefined) return null;
  if (!Array.isArray(aliases)) throw new InvalidSchemaError(`aliases not an array: ${writeJson(node)}`);
  const out = new Set<string>();
  for (const a of aliases) {
    if (typeof a !== "string") throw new InvalidSchemaError(`alias not a string: ${writeJson(a)}`);
    out.add(a);
  }
  return [...out];
}

function namedAliases(node: JsonObject, space: string | null): AvroName[] {
  const out = new Map<string, AvroName>();
  for (const a of parseAliasList(node) ?? []) {
    const n = makeName(a, space);
    if (!out.has(n.full)) out.set(n.full, n);
  }
  return [...out.values()];
}

/** Double.valueOf of a string default on a float/double field, as Avro reads it; its NumberFormatException makes the schema invalid. */
function stringDefaultAsDouble(text: string): number {
  try {
    return javaParseDouble(text);
  } catch (e) {
    if (e instanceof JavaNumberFormatError) throw new InvalidSchemaError(e.message);
    throw e;
  }
}

const INCOMPATIBLE_LOGICAL_PROPS = ["avro.java.string", "java-class", "java-key-class", "java-element-class"];

/**
 * LogicalTypes.fromSchemaIgnoreInvalid: the logical type Java recognises, or null (invalid ones
 * are ignored and stay plain props). Includes the "map"/"variant" types Confluent registers.
 */
function recogniseLogicalType(node: AvroNode): LogicalTypeInfo | null {
  const name = textOf(node.props.get("logicalType"));
  if (name === null) return null;
  if (INCOMPATIBLE_LOGICAL_PROPS.some((p) => textOf(node.props.get(p)) !== null)) return null;
  const t = node.type;
  switch (name) {
    case "date":
    case "time-millis":
      return t === "int" ? { name } : null;
    case "time-micros":
    case "timestamp-millis":
    case "timestamp-micros":
    case "timestamp-nanos":
    case "local-timestamp-millis":
    case "local-timestamp-micros":
    case "local-timestamp-nanos":
      return t === "long" ? { name } : null;
    case "uuid":
      return t === "string" || (node.type === "fixed" && node.size === 16) ? { name } : null;
    case "duration":
      return node.type === "fixed" && node.size === 12 ? { name } : null;
    case "big-decimal":
      return t === "bytes" ? { name } : null;
    case "decimal": {
      const p = node.props.get("precision");
      const s = node.props.get("scale");
      const isInt = (v: JsonValue | undefined): v is JsonNumber => v instanceof JsonNumber && v.kind === "int";
      if (!isInt(p)) return null;
      if (s !== undefined && !isInt(s)) return null;
      const precision = p.value;
      const scale = s === undefined ? 0 : s.value;
      if (t !== "bytes" && t !== "fixed") return null;
      const max = node.type === "fixed" ? Math.round(Math.floor(Math.log10(2) * (8 * node.size - 1))) : 2147483647;
      if (precision <= 0 || precision > max || scale < 0 || scale > precision) return null;
      return { name, precision, scale };
    }
    case "map": // Confluent LogicalMap: array of {key, value} records
      return node.type === "array" &&
        node.items.type === "record" &&
        node.items.fields.length === 2 &&
        node.items.fields[0].name === "key" &&
        node.items.fields[1].name === "value"
        ? { name }
        : null;
    case "variant": // Confluent VariantLogicalType: record {metadata: bytes, value: bytes}
      return node.type === "record" &&
        node.fields.length === 2 &&
        node.fields.some((f) => f.name === "metadata" && f.type.type === "bytes") &&
        node.fields.some((f) => f.name === "value" && f.type.type === "bytes")
        ? { name }
        : null;
    default:
      return null;
  }
}

function checkNotPrimitive(name: AvroName): void {
  if (PRIMITIVES.has(name.full))
    throw new InvalidSchemaError(`Schemas may not be named after primitives: ${name.full}`);
}

/**
 * Java 1.12 ParseContext + Schema.parse. Unknown names become placeholder records (as in Java),
 * resolved when a text is complete, so forward references work within one text.
 */
export class ParseContext {
  private readonly named = new Map<string, NamedNode>();
  private readonly placeholders = new Map<RecordNode, string>();
  private placeholderCount = 0;

  parseText(text: string): AvroNode {
    let json: JsonValue | undefined;
    try {
      json = parseJson(text);
    } catch (e) {
      if (e instanceof JsonSyntaxError) throw new InvalidSchemaError(e.message);
      throw e;
    }
    if (json === undefined) throw new InvalidSchemaError("Cannot parse <null> schema");
    return this.resolve(this.parse(json, null));
  }

  private find(name: string, space: string | null): AvroNode {
    if (PRIMITIVES.has(name)) return { type: name as PrimitiveType, props: new Map(), logicalType: null };
    const full = space !== null && !name.includes(".") ? `${space}.${name}` : name;
    const found = this.named.get(full) ?? this.named.get(name);
    if (found) return found;
    // Like Java's placeholder: an empty record with a unique name, so it never clashes in a union.
    const id = `UnresolvedSchema_${this.placeholderCount++}`;
    const placeholder: RecordNode = {
      type: "record",
      isError: false,
      name: { name: id, space: "org.apache.avro.compiler", full: `org.apache.avro.compiler.${id}` },
      doc: "unresolved schema",
      fields: [],
      aliases: [],
      props: new Map(),
      logicalType: null,
    };
    this.placeholders.set(placeholder, full);
    return placeholder;
  }

  private put(node: NamedNode): void {
    const parts = node.name.full.split(".");
    parts.forEach((part, i) => {
      const err = strictNameError(part);
      if (err !== null) {
        throw new InvalidSchemaError(
          `${i < parts.length - 1 ? "Namespace part" : "Name"} "${part}" is invalid: ${err}`,
        );
      }
    });
    const existing = this.named.get(node.name.full);
    if (existing === undefined) {
      this.named.set(node.name.full, node);
    } else if (!schemaEquals(existing, node)) {
      throw new InvalidSchemaError(`Can't redefine: ${node.name.full}`);
    }
  }

  private parse(json: JsonValue, space: string | null): AvroNode {
    if (typeof json === "string") return this.find(json, space);
    if (Array.isArray(json)) return this.parseUnion(json, space);
    if (!isJsonObject(json)) throw new InvalidSchemaError(`Schema not yet supported: ${writeJson(json)}`);
    const type = requiredText(json, "type", "No type");
    if (PRIMITIVES.has(type)) {
      const node: AvroNode = { type: type as PrimitiveType, props: propsOf(json, SCHEMA_RESERVED), logicalType: null };
      node.logicalType = recogniseLogicalType(node);
      return node;
    }
    switch (type) {
      case "record":
      case "error":
        return this.parseRecord(json, space, type === "error");
      case "enum":
        return this.parseEnum(json, space);
      case "array": {
        const items = json.get("items");
        if (items === undefined) throw new InvalidSchemaError(`Array has no items type: ${writeJson(json)}`);
        const node: AvroNode = {
          type: "array",
          items: this.parse(items, space),
          props: propsOf(json, SCHEMA_RESERVED),
          logicalType: null,
        };
        node.logicalType = recogniseLogicalType(node);
        return node;
      }
      case "map": {
        const values = json.get("values");
        if (values === undefined) throw new InvalidSchemaError(`Map has no values type: ${writeJson(json)}`);
        const node: AvroNode = {
          type: "map",
          values: this.parse(values, space),
          props: propsOf(json, SCHEMA_RESERVED),
          logicalType: null,
        };
        node.logicalType = recogniseLogicalType(node);
        return node;
      }
      case "fixed":
        return this.parseFixed(json, space);
      default:
        // Avro 1.12.1 treats {"type": "SomeName"} as a reference to a named type.
        return this.find(type, space);
    }
  }

  /** Name of a named type; Java checks it is not a primitive name when the schema object is built. */
  private parseName(json: JsonObject, space: string | null): AvroName {
    const ns = textOf(json.get("namespace")) ?? space;
    return makeName(requiredText(json, "name", "No name in schema"), ns);
  }

  private parseRecord(json: JsonObject, space: string | null, isError: boolean): RecordNode {
    const name = this.parseName(json, space);
    const doc = textOf(json.get("doc"));
    checkNotPrimitive(name);
    const fieldsJson = json.get("fields");
    if (!Array.isArray(fieldsJson)) throw new InvalidSchemaError(`Record has no fields: ${writeJson(json)}`);
    const fields: FieldNode[] = [];
    for (const fj of fieldsJson) fields.push(this.parseField(fj, name.space, fields.length));
    const byName = new Map<string, FieldNode>();
    for (const f of fields) {
      const prev = byName.get(f.name);
      if (prev) {
        throw new InvalidSchemaError(
          `Duplicate field ${f.name} in record ${name.full}: ${fieldString(f)} and ${fieldString(prev)}.`,
        );
      }
      byName.set(f.name, f);
    }
    const props = propsOf(json, SCHEMA_RESERVED);
    const aliases = namedAliases(json, name.space);
    const node: RecordNode = { type: "record", isError, name, doc, fields, props, logicalType: null, aliases };
    node.logicalType = recogniseLogicalType(node);
    this.put(node);
    return node;
  }

  private parseField(fj: JsonValue, space: string | null, pos: number): FieldNode {
    if (!isJsonObject(fj)) throw new InvalidSchemaError(`No field name: ${writeJson(fj)}`);
    const name = requiredText(fj, "name", "No field name");
    const doc = textOf(fj.get("doc"));
    const typeJson = fj.get("type");
    if (typeJson === undefined) throw new InvalidSchemaError(`No field type: ${writeJson(fj)}`);
    const type = this.parse(typeJson, space);
    let order: FieldOrder = "ascending";
    const orderJson = fj.get("order");
    if (orderJson !== undefined) {
      if (typeof orderJson !== "string") throw new InvalidSchemaError(`Invalid field order: ${writeJson(orderJson)}`);
      const upper = orderJson.toUpperCase();
      if (upper !== "ASCENDING" && upper !== "DESCENDING" && upper !== "IGNORE") {
        throw new InvalidSchemaError(`No enum constant org.apache.avro.Schema.Field.Order.${upper}`);
      }
      order = upper.toLowerCase() as FieldOrder;
    }
    let defaultValue = fj.get("default");
    if (typeof defaultValue === "string" && (type.type === "float" || type.type === "double")) {
      defaultValue = JsonNumber.ofDouble(stringDefaultAsDouble(defaultValue));
    }
    validateName(name);
    // Java validates here (against placeholders for forward references) and again after resolution.
    validateDefault(name, type, defaultValue);
    const props = propsOf(fj, FIELD_RESERVED);
    const aliases = parseAliasList(fj) ?? [];
    return { name, pos, type, doc, defaultValue, order, aliases, props };
  }

  private parseEnum(json: JsonObject, space: string | null): AvroNode {
    const name = this.parseName(json, space);
    const doc = textOf(json.get("doc"));
    const symbolsJson = json.get("symbols");
    if (!Array.isArray(symbolsJson)) throw new InvalidSchemaError(`Enum has no symbols: ${writeJson(json)}`);
    const rawSymbols = symbolsJson.map(textOf);
    const enumDefault = textOf(json.get("default"));
    checkNotPrimitive(name);
    const symbols = new Set<string>();
    for (const s of rawSymbols) {
      const sym = validateName(s);
      if (symbols.has(sym)) throw new InvalidSchemaError(`Duplicate enum symbol: ${sym}`);
      symbols.add(sym);
    }
    if (enumDefault !== null && !symbols.has(enumDefault)) {
      throw new InvalidSchemaError(
        `The Enum Default: ${enumDefault} is not in the enum symbol set: [${[...symbols].join(", ")}]`,
      );
    }
    const props = propsOf(json, ENUM_RESERVED);
    const aliases = namedAliases(json, name.space);
    const node: AvroNode = {
      type: "enum",
      name,
      doc,
      symbols: [...symbols],
      enumDefault,
      props,
      logicalType: null,
      aliases,
    };
    node.logicalType = recogniseLogicalType(node);
    this.put(node);
    return node;
  }

  private parseFixed(json: JsonObject, space: string | null): AvroNode {
    const name = this.parseName(json, space);
    const doc = textOf(json.get("doc"));
    const size = json.get("size");
    if (!(size instanceof JsonNumber) || size.kind !== "int")
      throw new InvalidSchemaError(`Invalid or no size: ${writeJson(json)}`);
    checkNotPrimitive(name);
    if (size.value < 0) throw new InvalidSchemaError(`Malformed data. Length is negative: ${size.value}`);
    if (size.value > MAX_FIXED_SIZE) {
      throw new InvalidSchemaError(`Cannot read arrays longer than ${MAX_FIXED_SIZE} bytes in Java library`);
    }
    const props = propsOf(json, SCHEMA_RESERVED);
    const aliases = namedAliases(json, name.space);
    const node: AvroNode = { type: "fixed", name, doc, size: size.value, props, logicalType: null, aliases };
    node.logicalType = recogniseLogicalType(node);
    this.put(node);
    return node;
  }

  private parseUnion(json: JsonValue[], space: string | null): UnionNode {
    const node: UnionNode = {
      type: "union",
      branches: json.map((b) => this.parse(b, space)),
      props: new Map(),
      logicalType: null,
    };
    checkUnion(node);
    return node;
  }

  /** Replaces placeholders by their definitions, then re-checks what Java re-checks on resolution. */
  private resolve(root: AvroNode): AvroNode {
    if (this.placeholders.size === 0) return root;
    const lookup = (n: AvroNode): AvroNode => {
      if (n.type !== "record") return n;
      const full = this.placeholders.get(n);
      if (full === undefined) return n;
      const target = this.named.get(full);
      if (target === undefined) throw new InvalidSchemaError(`Undefined schema: ${full}`);
      return target;
    };
    const seen = new Set<AvroNode>();
    const unions: UnionNode[] = [];
    const records: RecordNode[] = [];
    const walk = (n: AvroNode): void => {
      if (seen.has(n)) return;
      seen.add(n);
      switch (n.type) {
        case "record":
          records.push(n);
          for (const f of n.fields) {
            f.type = lookup(f.type);
            walk(f.type);
          }
          break;
        case "array":
          n.items = lookup(n.items);
          walk(n.items);
          break;
        case "map":
          n.values = lookup(n.values);
          walk(n.values);
          break;
        case "union":
          unions.push(n);
          n.branches.forEach((b, i) => {
            n.branches[i] = lookup(b);
            walk(n.branches[i]);
          });
          break;
        default:
          break;
      }
    };
    const resolvedRoot = lookup(root);
    walk(resolvedRoot);
    for (const named of this.named.values()) walk(named);
    this.placeholders.clear();
    for (const u of unions) checkUnion(u);
    for (const r of records) for (const f of r.fields) validateDefault(f.name, f.type, f.defaultValue);
    return resolvedRoot;
  }
}

function checkUnion(node: UnionNode): void {
  // avsc cannot represent it, and the runtime type must be buildable on first use.
  if (node.branches.length === 0) throw new InvalidSchemaError("empty union");
  const names = new Set<string>();
  for (const b of node.branches) {
    if (b.type === "union") throw new InvalidSchemaError(`Nested union: ${canonicalString(node)}`);
    const name = fullNameOf(b);
    if (names.has(name)) throw new InvalidSchemaError(`Duplicate in union:${name}`);
    names.add(name);
  }
}

/** Java's Field.toString(), used in its duplicate-field message. */
function fieldString(f: FieldNode): string {
  return `${f.name} type:${f.type.type.toUpperCase()} pos:${f.pos}`;
}
