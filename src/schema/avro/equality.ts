// Java Avro's Schema.equals, which decides whether a name may be defined again (identically) while
// parsing: docs and aliases do not count; props and defaults compare as Jackson's JsonNode.equals.
import { jsonTreeEquals } from "../../jvm/json-text.ts";
import { JsonNumber, type JsonValue } from "./json.ts";
import type { AvroNode, RecordNode, UnionNode } from "./model.ts";

/** Java Schema equality (used to allow re-defining a name identically): ignores docs and aliases. */
export function schemaEquals(
  a: AvroNode,
  b: AvroNode,
  seen = new Set<string>(),
  ids = new WeakMap<object, number>(),
): boolean {
  if (a === b) return true;
  if (a.type !== b.type || !jsonEquals(a.props, b.props)) return false;
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
          jsonEquals(f.props, g.props) &&
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
      return (
        a.branches.length === ub.branches.length &&
        a.branches.every((x, i) => schemaEquals(x, ub.branches[i], seen, ids))
      );
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

/**
 * Jackson's number node equality: the same node class, then the value; Double/FloatNode compare with
 * Double.compare, so NaN equals NaN and 0.0 is not -0.0 (Object.is).
 */
function numberNodesEqual(a: JsonNumber, b: JsonNumber): boolean {
  return a.kind === b.kind && (a.integer !== null ? a.integer === b.integer : Object.is(a.value, b.value));
}

/** Jackson's JsonNode.equals (objects as maps, numbers by node class and value). */
function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  return jsonTreeEquals(a, b, numberNodesEqual);
}
