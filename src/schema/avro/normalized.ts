// The normalized source of an Avro schema: Confluent `AvroSchemaUtils.toNormalizedString`
// (normalize=true, adapted by Confluent from Avro's SchemaNormalization). Full names everywhere, fixed
// key order, sorted props/aliases, every field with its "order", defaults converted through Avro's
// JacksonUtils.toObject and re-serialized with sorted object keys. The result may contain duplicate
// keys (logicalType is written twice); Jackson keeps the first position, and so does parseJson.
// Confluent then re-parses that text and stores *its* canonical string; index.ts does the re-parse.
import { sortedKeys } from "../../jvm/json-text.ts";
import { JsonNumber, quoteJson, writeJson, type JsonObject, type JsonValue } from "./json.ts";
import { aliasStrings, type AvroNode, type FieldNode, type LogicalTypeInfo } from "./model.ts";

/** Confluent's normalized JSON text, before the re-parse that yields the stored string. */
export function normalizedSource(root: AvroNode, referenceNames: Iterable<string> = []): string {
  const env = new Set(referenceNames);
  const out: string[] = [];
  buildNormalized(root, env, out);
  return out.join("");
}

function buildNormalized(s: AvroNode, env: Set<string>, out: string[]): void {
  switch (s.type) {
    case "union":
      out.push("[");
      s.branches.forEach((b, i) => {
        if (i > 0) out.push(",");
        buildNormalized(b, env, out);
      });
      out.push("]");
      return;
    case "array":
    case "map":
      out.push('{"type":"', s.type, '"');
      if (s.type === "array") {
        out.push(',"items":');
        buildNormalized(s.items, env, out);
      } else {
        out.push(',"values":');
        buildNormalized(s.values, env, out);
      }
      if (s.logicalType) writeLogicalProps(s.logicalType, out);
      writeSortedProps(s.props, out);
      out.push("}");
      return;
    case "record":
    case "enum":
    case "fixed": {
      const name = s.name.full;
      const qname = '"' + name + '"';
      if (env.has(name)) {
        out.push(qname);
        return;
      }
      env.add(name);
      // Java writes Schema.Type names here, so an "error" record comes out as "record".
      out.push('{"name":', qname, ',"type":"', s.type, '"');
      if (s.type === "enum") {
        out.push(',"symbols":[', s.symbols.map((x) => '"' + x + '"').join(","), "]");
      } else if (s.type === "fixed") {
        out.push(',"size":', String(s.size));
      } else {
        out.push(',"fields":[');
        s.fields.forEach((f, i) => {
          out.push(i === 0 ? '{"name":"' : ',{"name":"', f.name, '","type":');
          buildNormalized(f.type, env, out);
          writeNormalizedFieldProps(f, out);
          out.push("}");
        });
        out.push("]");
      }
      if (s.logicalType) writeLogicalProps(s.logicalType, out);
      if (s.doc !== null && s.doc !== "") out.push(',"doc":', quoteJson(s.doc));
      const aliases = aliasStrings(s);
      if (aliases.length > 0) out.push(',"aliases":', writeJson(sortStrings(aliases)));
      if (s.type === "enum" && s.enumDefault !== null) out.push(',"default":', quoteJson(s.enumDefault));
      writeSortedProps(s.props, out);
      out.push("}");
      return;
    }
    default:
      if (s.logicalType) {
        out.push('{"type":"', s.type, '"');
        writeLogicalProps(s.logicalType, out);
        writeSortedProps(s.props, out);
        out.push("}");
      } else if (s.props.size > 0) {
        out.push('{"type":"', s.type, '"');
        writeSortedProps(s.props, out);
        out.push("}");
      } else {
        out.push('"', s.type, '"');
      }
  }
}

function sortStrings(xs: readonly string[]): string[] {
  // TreeSet / TreeMap order: String.compareTo, i.e. UTF-16 code units, which is JS's default sort.
  return [...new Set(xs)].sort();
}

function writeLogicalProps(lt: LogicalTypeInfo, out: string[]): void {
  out.push(',"logicalType":"', lt.name, '"');
  if (lt.name === "decimal") {
    out.push(',"precision":', String(lt.precision ?? 0));
    if ((lt.scale ?? 0) !== 0) out.push(',"scale":', String(lt.scale));
  }
}

function writeSortedProps(props: JsonObject, out: string[]): void {
  for (const key of sortStrings([...props.keys()])) {
    const v = props.get(key);
    if (v === undefined) continue;
    out.push(',"', key, '":', writeJson(sortedKeys(v)));
  }
}

function writeNormalizedFieldProps(f: FieldNode, out: string[]): void {
  out.push(',"order":"', f.order.toUpperCase(), '"'); // Field.Order.toString() is the constant name
  if (f.doc !== null) out.push(',"doc":', quoteJson(f.doc));
  if (f.aliases.length > 0) out.push(',"aliases":', writeJson(sortStrings(f.aliases)));
  if (f.defaultValue !== undefined) {
    const v = defaultToObject(f.defaultValue, f.type);
    if (v !== undefined) out.push(',"default":', writeJson(sortedKeys(v)));
  }
  writeSortedProps(f.props, out);
}

/**
 * Avro's JacksonUtils.toObject(node, schema) as seen through Confluent's genJson: the value Java
 * would write for a field default, or undefined where Java gets null (then no "default" is written).
 * A union converts against its first branch only, as in Java.
 */
function defaultToObject(node: JsonValue, schema: AvroNode | null): JsonValue | undefined {
  if (schema !== null && schema.type === "union") return defaultToObject(node, schema.branches[0] ?? null);
  const t = schema?.type;
  if (node === null) return null;
  if (typeof node === "boolean") return node;
  if (node instanceof JsonNumber) {
    if (node.kind === "int" || node.kind === "long") {
      if (t === undefined || t === "int" || t === "long") return node;
      if (t === "float") return JsonNumber.ofFloat(node.value);
      if (t === "double") return JsonNumber.ofDouble(node.value);
      return undefined;
    }
    if (node.kind === "double" || node.kind === "float") {
      if (t === "double" || (t === undefined && node.kind === "double")) return JsonNumber.ofDouble(node.value);
      if (t === "float" || t === undefined) return JsonNumber.ofFloat(node.value);
      return undefined;
    }
    return undefined; // BigIntegerNode: toObject has no branch for it
  }
  if (typeof node === "string") {
    if (t === undefined || t === "string" || t === "enum") return node;
    // bytes/fixed go through ISO-8859-1 both ways: chars above U+00FF become '?'.
    if (t === "bytes" || t === "fixed") return node.replace(/[^\u0000-\u00ff]/gu, "?");
    return undefined;
  }
  if (Array.isArray(node)) {
    const items = schema !== null && schema.type === "array" ? schema.items : null;
    return node.map((x) => defaultToObject(x, items) ?? null);
  }
  const m: JsonObject = new Map();
  for (const [k, v] of node) {
    let s: AvroNode | null = null;
    if (schema !== null && schema.type === "map") s = schema.values;
    else if (schema !== null && schema.type === "record") s = schema.fields.find((f) => f.name === k)?.type ?? null;
    m.set(k, defaultToObject(v, s) ?? null);
  }
  return m;
}
