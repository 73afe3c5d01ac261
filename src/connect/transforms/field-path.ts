// Kafka's SingleFieldPath (KIP-821): `field.syntax.version=V1` names a top-level field verbatim; V2
// splits on dots, with backticks around a step that contains dots (`foo.bar`.baz) and a backslash
// before a backtick that belongs to the name.
import type { Setting } from "../../platform/settings.ts";
import type { Field, Schema, Struct } from "../api/data/index.ts";
import { requireMapOrNull, requireStructOrNull } from "./requirements.ts";
import { mapGet, type SchemalessMap } from "./schemaless-map.ts";
import { fieldValue } from "./struct-copy.ts";
import { configProblem } from "./transform-settings.ts";

export type FieldSyntaxVersion = "V1" | "V2";

export const FIELD_SYNTAX_VERSION: Setting = {
  name: "field.syntax.version",
  type: "string",
  default: "V1",
  oneOf: ["V1", "V2"],
  importance: "high",
  doc: 'Defines the version of the syntax to access fields. V1: only top-level fields. V2: dotted paths to nested fields; wrap a name containing dots in backticks, e.g. "`foo.bar`.baz".',
};

export class SingleFieldPath {
  readonly steps: readonly string[];

  constructor(
    readonly text: string,
    readonly version: FieldSyntaxVersion,
  ) {
    this.steps = version === "V1" ? [text] : parseV2(text);
  }

  /** The field the path names in `schema`, or null (Kafka's fieldFrom). */
  fieldFrom(schema: Schema | null): Field | null {
    if (schema === null) return null;
    let current = schema;
    for (const step of this.steps.slice(0, -1)) {
      const f = current.field(step);
      if (f === null) return null;
      current = f.schema;
    }
    return current.field(this.steps[this.steps.length - 1]);
  }

  valueFromStruct(struct: Struct | null, withDefault = true): unknown {
    if (struct === null) return null;
    let current: Struct | null = struct;
    for (const step of this.steps.slice(0, -1)) {
      if (current.schema.field(step) === null) return null;
      current = requireStructOrNull(current.get(step), "nested field access");
      if (current === null) return null;
    }
    const last = this.steps[this.steps.length - 1];
    if (current.schema.field(last) === null) return null;
    return fieldValue(current, last, withDefault);
  }

  valueFromMap(map: SchemalessMap | null): unknown {
    if (map === null) return null;
    let current: SchemalessMap | null = map;
    for (const step of this.steps.slice(0, -1)) {
      current = requireMapOrNull(mapGet(current, step), "nested field access");
      if (current === null) return null;
    }
    return mapGet(current, this.steps[this.steps.length - 1]);
  }
}

function parseV2(path: string): string[] {
  const steps: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] !== "`") {
      const dot = path.indexOf(".", i);
      steps.push(dot < 0 ? path.slice(i) : path.slice(i, dot));
      if (dot < 0) break;
      i = dot + 1;
      continue;
    }
    // A backticked step ends at a backtick followed by a dot or the end, unless a backslash escapes it.
    const opening = i;
    let name = "";
    let start = i + 1;
    let scan = start;
    for (;;) {
      const tick = path.indexOf("`", scan);
      if (tick < 0) throw incomplete(path, opening);
      const escaped = path[tick - 1] === "\\";
      if (tick >= path.length - 1) {
        if (escaped) throw incomplete(path, opening);
        steps.push(name + path.slice(start, tick));
        i = tick + 1;
        break;
      }
      if (path[tick + 1] !== ".") {
        scan = tick + 1;
        continue;
      }
      if (escaped) {
        name += path.slice(start, tick - 1) + "`";
        start = scan = tick + 1;
        continue;
      }
      steps.push(name + path.slice(start, tick));
      i = tick + 2;
      break;
    }
  }
  if (path.endsWith(".")) steps.push("");
  if (steps.length === 0) steps.push("");
  return steps;
}

function incomplete(path: string, at: number): Error {
  return configProblem(
    "field",
    `Incomplete backtick pair in path: [${path}], consider adding a backslash before backtick at position ${at} to escape it`,
  );
}
