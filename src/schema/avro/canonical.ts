// The canonical string of an Avro schema: Java Avro 1.12 `Schema.toString(referencedSchemas, false)`
// (Schema.toJson(knownNames, namespace, gen)), the string Confluent stores, hashes for identity and
// returns from GET /schemas/ids/{id}.
import { quoteJson, writeJson, type JsonObject } from "./json.ts";
import {
  qualifiedName,
  type ArrayNode,
  type AvroName,
  type AvroNode,
  type MapNode,
  type NamedNode,
  type RecordNode,
} from "./model.ts";

/**
 * Renders like Java's `schema.toString(referencedSchemas, false)`. `knownNames` are full names
 * written as name references from the start (Confluent passes the top-level names of the
 * referenced schemas); every other named type is written in full at its first occurrence.
 */
export function canonicalString(root: AvroNode, knownNames: Iterable<string> = []): string {
  const out: string[] = [];
  writeSchema(root, new Set(knownNames), null, out);
  return out.join("");
}

function writeProps(props: JsonObject, out: string[], skipFirst?: string): void {
  for (const [k, v] of props) {
    if (k === skipFirst) continue;
    out.push(",", quoteJson(k), ":", writeJson(v));
  }
}

/**
 * Props in Java's final order. Parsing resolves names by cloning records, arrays and maps, and the
 * clone gets its logical type (when Java recognised one) before the other properties.
 */
function writeContainerProps(node: RecordNode | ArrayNode | MapNode, out: string[]): void {
  const lt = node.logicalType ? node.props.get("logicalType") : undefined;
  if (lt !== undefined) {
    out.push(',"logicalType":', writeJson(lt));
    writeProps(node.props, out, "logicalType");
  } else {
    writeProps(node.props, out);
  }
}

function writeName(n: AvroName, currentSpace: string | null, out: string[]): void {
  out.push(',"name":', quoteJson(n.name));
  if (n.space !== null) {
    if (n.space !== currentSpace) out.push(',"namespace":', quoteJson(n.space));
  } else if (currentSpace !== null) {
    out.push(',"namespace":""'); // null namespace inside a non-null one
  }
}

function writeAliases(node: NamedNode, out: string[]): void {
  if (node.aliases.length === 0) return;
  out.push(',"aliases":[', node.aliases.map((a) => quoteJson(qualifiedName(a, node.name.space))).join(","), "]");
}

function writeSchema(node: AvroNode, known: Set<string>, space: string | null, out: string[]): void {
  switch (node.type) {
    case "record": {
      if (writtenBefore(node.name, known, space, out)) return;
      out.push('{"type":', node.isError ? '"error"' : '"record"');
      writeName(node.name, space, out);
      if (node.doc !== null) out.push(',"doc":', quoteJson(node.doc));
      out.push(',"fields":[');
      node.fields.forEach((f, i) => {
        out.push(i === 0 ? '{"name":' : ',{"name":', quoteJson(f.name), ',"type":');
        writeSchema(f.type, known, node.name.space, out);
        if (f.doc !== null) out.push(',"doc":', quoteJson(f.doc));
        if (f.defaultValue !== undefined) out.push(',"default":', writeJson(f.defaultValue));
        if (f.order !== "ascending") out.push(',"order":', quoteJson(f.order));
        if (f.aliases.length > 0) out.push(',"aliases":[', f.aliases.map(quoteJson).join(","), "]");
        writeProps(f.props, out);
        out.push("}");
      });
      out.push("]");
      writeContainerProps(node, out);
      writeAliases(node, out);
      out.push("}");
      return;
    }
    case "enum": {
      if (writtenBefore(node.name, known, space, out)) return;
      out.push('{"type":"enum"');
      writeName(node.name, space, out);
      if (node.doc !== null) out.push(',"doc":', quoteJson(node.doc));
      out.push(',"symbols":[', node.symbols.map(quoteJson).join(","), "]");
      if (node.enumDefault !== null) out.push(',"default":', quoteJson(node.enumDefault));
      writeProps(node.props, out);
      writeAliases(node, out);
      out.push("}");
      return;
    }
    case "fixed": {
      if (writtenBefore(node.name, known, space, out)) return;
      out.push('{"type":"fixed"');
      writeName(node.name, space, out);
      if (node.doc !== null) out.push(',"doc":', quoteJson(node.doc));
      out.push(',"size":', String(node.size));
      writeProps(node.props, out);
      writeAliases(node, out);
      out.push("}");
      return;
    }
    case "array":
      out.push('{"type":"array","items":');
      writeSchema(node.items, known, space, out);
      writeContainerProps(node, out);
      out.push("}");
      return;
    case "map":
      out.push('{"type":"map","values":');
      writeSchema(node.values, known, space, out);
      writeContainerProps(node, out);
      out.push("}");
      return;
    case "union":
      out.push("[");
      node.branches.forEach((b, i) => {
        if (i > 0) out.push(",");
        writeSchema(b, known, space, out);
      });
      out.push("]");
      return;
    default:
      if (node.props.size === 0) {
        out.push(quoteJson(node.type));
      } else {
        out.push('{"type":', quoteJson(node.type));
        writeProps(node.props, out);
        out.push("}");
      }
  }
}

/** A named type is written in full once; later occurrences are name references (as Java's Names do). */
function writtenBefore(name: AvroName, known: Set<string>, space: string | null, out: string[]): boolean {
  if (known.has(name.full)) {
    out.push(quoteJson(qualifiedName(name, space)));
    return true;
  }
  known.add(name.full);
  return false;
}
