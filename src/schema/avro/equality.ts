// Java Avro's Schema.equals, which decides whether a name may be defined again (identically) while
// parsing: docs and aliases do not count; props and defaults compare as Jackson's JsonNode.equals.
import { JsonNumber, isJsonObject, type JsonObject, type JsonValue } from "./json.ts";
import type { AvroNode, RecordNode, UnionNode } from "./model.ts";

/** Java Schema equality (used to allow re-defining a name identically): ignores docs and aliases. */
export function schemaEquals(a: AvroNode, b: AvroNode, seen = new Set<string>(), ids = new WeakMap<object, number>()): boolean {
  if (a === b) return true;
  if (a.type !== b.type || !jsonMapEquals(a.props, b.props)) return false;
  switch (a.type) {
    case "record": {
      const rb = b as RecordNode;
      if (a.name.full !== rb.name.full || a.fields.length !== rb.fields.length) return false;
      const key = `${idOf(a, ids)}:${idOf(rb, ids)}`;
      if (seen.has(key)) return true;
      seen.add(key);
      return a.fields.every((f, i) => {
        const g = rb.fields[i];
        return (
          f.name === g.name &&
          f.order === g.order &&
          jsonMapEquals(f.props, g.props) &&
          defaultEquals(f.defaultValue, g.defaultValue) &&
          schemaEquals(f.type, g.type, seen, ids)
        );
      });
    }
    case "enum": {
      const eb = b as typeof a;
      return (
        a.name.full === eb.name.full &&
        a.symbols.length === eb.symbols.length &&
        a.symbols.every((x, i) => x === eb.symbols[i])
      );
    }
    case "fixed": {
      const fb = b as typeof a;
      return a.name.full === fb.name.full && a.size === fb.size;
    }
    case "array":
      return schemaEquals(a.items, (b as typeof a).items, seen, ids);
    case "map":
      return schemaEquals(a.values, (b as typeof a).values, seen, ids);
    case "union": {
      const ub = b as UnionNode;
      return a.branches.length === ub.branches.length && a.branches.every((x, i) => schemaEquals(x, ub.branches[i], seen, ids));
    }
    default:
      return true;
  }
}

let nextId = 0;
function idOf(o: object, ids: WeakMap<object, number>): number {
  let id = ids.get(o);
  if (id === undefined) {
    id = nextId++;
    ids.set(o, id);
  }
  return id;
}

function defaultEquals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a instanceof JsonNumber && b instanceof JsonNumber && Number.isNaN(a.value) && Number.isNaN(b.value)) return true;
  return jsonEquals(a, b);
}

/** Jackson JsonNode.equals: node classes must match (1 ≠ 1.0), objects compare unordered. */
function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a instanceof JsonNumber || b instanceof JsonNumber) {
    return (
      a instanceof JsonNumber &&
      b instanceof JsonNumber &&
      a.kind === b.kind &&
      (a.integer !== null ? a.integer === b.integer : a.value === b.value)
    );
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEquals(x, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) return jsonMapEquals(a, b);
  return false;
}

function jsonMapEquals(a: JsonObject, b: JsonObject): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (w === undefined || !jsonEquals(v, w)) return false;
  }
  return true;
}
