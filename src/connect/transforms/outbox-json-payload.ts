// The outbox EventRouter's `table.expand.json.payload`: a JSON text payload becomes a Struct whose
// schema is inferred from the document, as Debezium's JsonSchemaData does it over a Jackson tree.
// Jackson's node kinds decide the types: an integer that fits 32 bits is INT32, one that fits 64 bits
// INT64, a fraction or exponent FLOAT64 (and a larger integer too, whose value then fails to fit, so
// the expansion fails as Debezium's does). Objects keep their fields in document order; a struct is
// named after its path from the payload field (`payload`, `payload.items`). Nulls and empty arrays
// are dropped from the schema unless `table.json.payload.null.behavior=optional_bytes` /
// `table.json.payload.empty.array.behavior=optional_string` keep them.
import { javaParseDouble } from "../../jvm/java-numbers.ts";
import { readJsonTree, type JsonTree } from "../../jvm/json-text.ts";
import { DataException, Schema, SchemaBuilder, Struct } from "../api/data/index.ts";
import { copySchemaBasics } from "./struct-copy.ts";

export type JsonNullBehavior = "ignore" | "optional_bytes";
export type JsonEmptyArrayBehavior = "ignore" | "optional_string";

/** A JSON number as Jackson's default ObjectMapper reads it. */
class JsonNumber {
  readonly kind: "int" | "long" | "big" | "double";
  constructor(
    readonly text: string,
    integral: boolean,
  ) {
    if (!integral) this.kind = "double";
    else {
      const n = BigInt(text);
      this.kind = n >= -(2n ** 31n) && n < 2n ** 31n ? "int" : n >= -(2n ** 63n) && n < 2n ** 63n ? "long" : "big";
    }
  }
}

type Node = JsonTree<JsonNumber>;

/** Jackson's JsonNodeType of a node. */
function nodeType(node: Node): string {
  if (node === null) return "NULL";
  if (typeof node === "boolean") return "BOOLEAN";
  if (typeof node === "string") return "STRING";
  if (node instanceof JsonNumber) return "NUMBER";
  return Array.isArray(node) ? "ARRAY" : "OBJECT";
}

/** JsonNode.asText(): a container's is empty. */
function asText(node: Node): string {
  if (node === null) return "null";
  if (node instanceof JsonNumber || typeof node !== "object")
    return String(node instanceof JsonNumber ? node.text : node);
  return "";
}

export class OutboxJsonPayload {
  constructor(
    private readonly nullBehavior: JsonNullBehavior,
    private readonly emptyArrayBehavior: JsonEmptyArrayBehavior,
  ) {}

  /**
   * The document of a payload text starting with `{` or `[` (anything else is not expanded, as
   * Debezium's parser refuses it); throws when the text is not JSON.
   */
  static parse(text: string): Node {
    if (!text.startsWith("{") && !text.startsWith("["))
      throw new DataException(`Unable to parse payload starting with '${text.charAt(0)}'`);
    const node = readJsonTree(text, (t, integral) => new JsonNumber(t, integral));
    if (node === undefined) throw new DataException("No content to map due to end-of-input");
    return node;
  }

  /** The Connect schema inferred for `node` (null when the node leaves no field). */
  schemaOf(key: string | null, node: Node): Schema | null {
    switch (nodeType(node)) {
      case "STRING":
        return Schema.OPTIONAL_STRING_SCHEMA;
      case "BOOLEAN":
        return Schema.OPTIONAL_BOOLEAN_SCHEMA;
      case "NUMBER": {
        const kind = (node as JsonNumber).kind;
        return kind === "int"
          ? Schema.OPTIONAL_INT32_SCHEMA
          : kind === "long"
            ? Schema.OPTIONAL_INT64_SCHEMA
            : Schema.OPTIONAL_FLOAT64_SCHEMA;
      }
      case "ARRAY": {
        const array = node as Node[];
        if (array.length === 0)
          return this.emptyArrayBehavior === "optional_string"
            ? SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build()
            : null;
        return SchemaBuilder.array(this.elementSchema(key, array)).optional().build();
      }
      case "OBJECT": {
        const builder = SchemaBuilder.struct().optional();
        if (key !== null) builder.name(key);
        const added = new Set<string>();
        for (const [name, value] of node as Map<string, Node>) {
          const fieldSchema = this.schemaOf(key === null || key.trim() === "" ? name : `${key}.${name}`, value);
          if (fieldSchema !== null && !added.has(name)) builder.field(name, fieldSchema);
          added.add(name);
        }
        return builder.build();
      }
      default:
        return this.nullBehavior === "optional_bytes" ? Schema.OPTIONAL_BYTES_SCHEMA : null;
    }
  }

  /** The value of `node` laid out by `schema` (from schemaOf). */
  valueOf(node: Node, schema: Schema): unknown {
    return this.struct(node, schema);
  }

  private elementSchema(key: string | null, array: Node[]): Schema {
    const sample = this.firstElement(array);
    if (nodeType(sample) !== "OBJECT") {
      const schema = this.schemaOf(null, sample);
      if (schema === null) throw new DataException(`Array '${asText(array)}' has unrecognized member schema.`);
      return schema;
    }
    // Debezium merges the distinct element schemas of a HashSet; equal ones collapse into one. Distinct
    // ones are merged here in the order the elements come: Java's order hangs on Schema.Type's identity
    // hash codes, which differ from one JVM run to the next.
    const distinct: Schema[] = [];
    for (const element of array) {
      if (nodeType(element) !== "OBJECT") continue;
      const schema = this.schemaOf(key, element)!;
      if (!distinct.some((s) => s.equals(schema))) distinct.push(schema);
    }
    return distinct.reduce<Schema | null>((merged, s) => mergeSchemas(merged, s), null)!;
  }

  /** The first non-null element, after checking every element is of its kind (numbers of the same schema). */
  private firstElement(array: Node[]): Node {
    let first: Node = null;
    let firstSchema: Schema | null = null;
    for (const element of array) {
      if (element === null) continue;
      if (first === null) first = element;
      if (nodeType(element) !== nodeType(first))
        throw new DataException(`Field is not a homogenous array (${asText(first)} x ${nodeType(element)}).`);
      if (nodeType(first) === "NUMBER") {
        firstSchema ??= this.schemaOf(null, first);
        const elementSchema = this.schemaOf(null, element);
        if (elementSchema !== firstSchema)
          throw new DataException(
            `Field is not a homogenous array (${asText(first)} x ${asText(element)}), different number types`,
          );
      }
    }
    return first;
  }

  private struct(node: Node, schema: Schema): Struct {
    const struct = new Struct(schema);
    const fields = node instanceof Map ? node : null;
    for (const field of schema.fields) {
      const value = fields?.get(field.name);
      if (value !== undefined) struct.put(field.name, this.fieldValue(value, field.schema));
    }
    return struct;
  }

  private fieldValue(node: Node, schema: Schema): unknown {
    switch (nodeType(node)) {
      case "STRING":
      case "BOOLEAN":
        return node;
      case "NUMBER": {
        const n = node as JsonNumber;
        if (n.kind === "double") return javaParseDouble(n.text);
        if (n.kind === "int") return Number(n.text);
        if (n.kind === "long") return BigInt(n.text);
        // Jackson hands a BigDecimal, which no Connect type above takes.
        throw new DataException(`Invalid Java object for schema with type ${schema.type}: class java.math.BigDecimal`);
      }
      case "ARRAY":
        return (node as Node[]).map((element) => this.fieldValue(element, schema.valueSchema!));
      case "OBJECT":
        return this.struct(node, schema);
      default:
        return null;
    }
  }
}

/** Fields of `left`, then those only `right` has; a BYTES field (a null) gives way to `right`'s typed one. */
function mergeSchemas(left: Schema | null, right: Schema): Schema {
  if (left === null) return right;
  const fields = new Map(left.fields.map((f) => [f.name, f.schema]));
  for (const f of right.fields) {
    const old = fields.get(f.name);
    if (old === undefined) fields.set(f.name, f.schema);
    else if (!old.equals(f.schema) && old.type === "BYTES" && f.schema.type !== "BYTES") fields.set(f.name, f.schema);
  }
  const builder = copySchemaBasics(left, SchemaBuilder.struct());
  for (const [name, schema] of fields) builder.field(name, schema);
  return builder.build();
}
