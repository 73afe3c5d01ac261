// Reader/writer compatibility exactly as Java Avro's SchemaCompatibility (1.12) decides it, with the
// descriptions Confluent's Difference.java builds from each incompatibility.
//
// Who is "new" and who is "old": Confluent's templates have two placeholders, filled with
// (reader label, writer label). BACKWARD checks the new schema as reader of the old one's data
// (labels "new", "old"); FORWARD checks the old schema as reader of the new one's data ("old",
// "new"); FULL does both (forward first). Hence the `newSchema` option: which side is the new one.
//
// Quirks kept on purpose because Confluent's output depends on them:
// - results are memoized per (reader node, writer node) identity, including their paths, so a named
//   type met again reports the path of its first comparison;
// - union branches are compared with a fresh path (the union itself reports MISSING_UNION_BRANCH);
// - named types match on their unqualified names (or a reader alias equal to the writer full name);
// - a reader field without default whose type is an enum with a default is compared against the
//   whole writer record (a TYPE_MISMATCH).
import type { Incompatibility } from "../format.ts";
import { canonicalString } from "./canonical.ts";
import {
  aliasStrings,
  type AvroNode,
  type EnumNode,
  type FieldNode,
  type FixedNode,
  type NamedNode,
  type RecordNode,
} from "./model.ts";

export type NewSchemaSide = "reader" | "writer";

export type IncompatibilityType =
  | "NAME_MISMATCH"
  | "FIXED_SIZE_MISMATCH"
  | "MISSING_ENUM_SYMBOLS"
  | "READER_FIELD_MISSING_DEFAULT_VALUE"
  | "TYPE_MISMATCH"
  | "MISSING_UNION_BRANCH"
  /** Java threw; Confluent then reports only "Unexpected exception during compatibility check: …". */
  | "UNEXPECTED_EXCEPTION";

export interface ReadProblemsOptions {
  /** Which side is the schema being registered (default "reader", i.e. a BACKWARD check). */
  newSchema?: NewSchemaSide;
  /**
   * Avro release to mimic. "1.12" (Confluent 8.1+; default) puts a writer-union branch index into
   * the path when the reader is not a union; "1.11" (older Confluent) restarted the path there.
   */
  avroVersion?: "1.11" | "1.12";
}

interface Found {
  readonly type: Exclude<IncompatibilityType, "UNEXPECTED_EXCEPTION">;
  /** Avro's Incompatibility.getMessage(); Confluent's additionalInfo. */
  readonly message: string;
  /** Location tokens from the root token "", as Avro's asList(location). */
  readonly location: readonly string[];
}

interface Result {
  readonly compatible: boolean;
  readonly found: readonly Found[];
}

const COMPATIBLE: Result = { compatible: true, found: [] };
const IN_PROGRESS: Result = { compatible: true, found: [] };

function merge(a: Result, b: Result): Result {
  if (b.found.length === 0 && b.compatible) return a;
  return { compatible: a.compatible && b.compatible, found: [...a.found, ...b.found] };
}

function mergeAll(results: readonly Result[]): Result {
  const found = results.flatMap((r) => r.found);
  const compatible = results.every((r) => r.compatible);
  return found.length === 0 && compatible ? COMPATIBLE : { compatible, found };
}

function incompatible(type: Found["type"], message: string, location: readonly string[]): Result {
  return { compatible: false, found: [{ type, message, location: [...location] }] };
}

/** JSON-pointer path from a location, skipping the root token (Incompatibility.getLocation). */
function pathOf(location: readonly string[]): string {
  return (
    "/" +
    location
      .slice(1)
      .map((t) => t.replace(/~/g, "~0").replace(/\//g, "~1"))
      .join("/")
  );
}

class AmbiguousFieldError extends Error {}

class Checker {
  private readonly memo = new Map<AvroNode, Map<AvroNode, Result>>();

  constructor(private readonly avroVersion: "1.11" | "1.12") {}

  /** The public two-argument entry: a fresh location, shared memo. */
  fresh(reader: AvroNode, writer: AvroNode): Result {
    return this.check("", reader, writer, []);
  }

  check(token: string, reader: AvroNode, writer: AvroNode, location: string[]): Result {
    location.push(token);
    let byWriter = this.memo.get(reader);
    if (!byWriter) {
      byWriter = new Map();
      this.memo.set(reader, byWriter);
    }
    let result = byWriter.get(writer);
    if (result === IN_PROGRESS) {
      result = COMPATIBLE; // recursion: compatible unless proven otherwise elsewhere
    } else if (result === undefined) {
      byWriter.set(writer, IN_PROGRESS);
      result = this.calculate(reader, writer, location);
      byWriter.set(writer, result);
    }
    location.pop();
    return result;
  }

  private calculate(reader: AvroNode, writer: AvroNode, location: string[]): Result {
    if (reader.type === writer.type) {
      switch (reader.type) {
        case "array":
          return this.check("items", reader.items, (writer as typeof reader).items, location);
        case "map":
          return this.check("values", reader.values, (writer as typeof reader).values, location);
        case "fixed":
          return merge(
            this.checkNames(reader, writer as NamedNode, location),
            checkFixedSize(reader, writer as FixedNode, location),
          );
        case "enum":
          return merge(
            this.checkNames(reader, writer as NamedNode, location),
            checkEnumSymbols(reader, writer as EnumNode, location),
          );
        case "record":
          return merge(
            this.checkNames(reader, writer as NamedNode, location),
            this.checkFields(reader, writer as RecordNode, location),
          );
        case "union": {
          let result = COMPATIBLE;
          (writer as typeof reader).branches.forEach((branch, i) => {
            location.push(String(i));
            if (!this.fresh(reader, branch).compatible) {
              result = merge(
                result,
                incompatible("MISSING_UNION_BRANCH", `reader union lacking writer type: ${javaType(branch)}`, location),
              );
            }
            location.pop();
          });
          return result;
        }
        default:
          return COMPATIBLE;
      }
    }

    if (writer.type === "union") {
      // Every writer branch must be readable.
      let result = COMPATIBLE;
      writer.branches.forEach((branch, i) => {
        result = merge(
          result,
          this.avroVersion === "1.11" ? this.fresh(reader, branch) : this.check(String(i), reader, branch, location),
        );
      });
      return result;
    }

    switch (reader.type) {
      case "long":
        return writer.type === "int" ? COMPATIBLE : typeMismatch(reader, writer, location);
      case "float":
        return writer.type === "int" || writer.type === "long" ? COMPATIBLE : typeMismatch(reader, writer, location);
      case "double":
        return writer.type === "int" || writer.type === "long" || writer.type === "float"
          ? COMPATIBLE
          : typeMismatch(reader, writer, location);
      case "bytes":
        return writer.type === "string" ? COMPATIBLE : typeMismatch(reader, writer, location);
      case "string":
        return writer.type === "bytes" ? COMPATIBLE : typeMismatch(reader, writer, location);
      case "union":
        for (const branch of reader.branches) {
          if (this.fresh(branch, writer).compatible) return COMPATIBLE;
        }
        return incompatible("MISSING_UNION_BRANCH", `reader union lacking writer type: ${javaType(writer)}`, location);
      default:
        return typeMismatch(reader, writer, location);
    }
  }

  private checkNames(reader: NamedNode, writer: NamedNode, location: string[]): Result {
    location.push("name");
    const ok = reader.name.name === writer.name.name || aliasStrings(reader).includes(writer.name.full);
    const result = ok ? COMPATIBLE : incompatible("NAME_MISMATCH", `expected: ${writer.name.full}`, location);
    location.pop();
    return result;
  }

  private checkFields(reader: RecordNode, writer: RecordNode, location: string[]): Result {
    // Collected in place rather than merged per field: a record may have tens of thousands.
    const results: Result[] = [];
    const writerFields = new Map(writer.fields.map((f) => [f.name, f]));
    location.push("fields");
    for (const rf of reader.fields) {
      location.push(String(rf.pos));
      const wf = lookupWriterField(writer, rf, writerFields);
      if (wf !== null) {
        results.push(this.check("type", rf.type, wf.type, location));
      } else if (rf.defaultValue === undefined) {
        if (rf.type.type === "enum" && rf.type.enumDefault !== null) {
          // Avro compares the enum against the writer *record* here.
          results.push(this.check("type", rf.type, writer, location));
        } else {
          results.push(incompatible("READER_FIELD_MISSING_DEFAULT_VALUE", rf.name, location));
        }
      }
      location.pop();
    }
    location.pop();
    return mergeAll(results);
  }
}

/** Schema.Type.toString(): the upper-case constant name. */
function javaType(n: AvroNode): string {
  return n.type.toUpperCase();
}

function typeMismatch(reader: AvroNode, writer: AvroNode, location: string[]): Result {
  return incompatible(
    "TYPE_MISMATCH",
    `reader type: ${javaType(reader)} not compatible with writer type: ${javaType(writer)}`,
    location,
  );
}

function checkFixedSize(reader: FixedNode, writer: FixedNode, location: string[]): Result {
  if (reader.size === writer.size) return COMPATIBLE;
  location.push("size");
  const result = incompatible("FIXED_SIZE_MISMATCH", `expected: ${writer.size}, found: ${reader.size}`, location);
  location.pop();
  return result;
}

function checkEnumSymbols(reader: EnumNode, writer: EnumNode, location: string[]): Result {
  const readerSymbols = new Set(reader.symbols);
  const missing = [...new Set(writer.symbols)].filter((s) => !readerSymbols.has(s)).sort();
  if (missing.length === 0) return COMPATIBLE;
  if (reader.enumDefault !== null && readerSymbols.has(reader.enumDefault)) return COMPATIBLE;
  location.push("symbols");
  const result = incompatible("MISSING_ENUM_SYMBOLS", `[${missing.join(", ")}]`, location);
  location.pop();
  return result;
}

/** Writer field for a reader field: by name, then by each reader alias; more than one match throws. */
function lookupWriterField(
  writer: RecordNode,
  readerField: FieldNode,
  fieldsByName: ReadonlyMap<string, FieldNode>,
): FieldNode | null {
  const matches: FieldNode[] = [];
  const direct = fieldsByName.get(readerField.name);
  if (direct) matches.push(direct);
  for (const alias of readerField.aliases) {
    const f = fieldsByName.get(alias);
    if (f) matches.push(f);
  }
  if (matches.length > 1) {
    throw new AmbiguousFieldError(
      `Reader record field ${readerField.name} type:${javaType(readerField.type)} pos:${readerField.pos} ` +
        `matches multiple fields in writer record schema ${canonicalString(writer)}`,
    );
  }
  return matches[0] ?? null;
}

/** Confluent Difference.java description, with (reader, writer) labels substituted. */
function describe(f: Found, path: string, readerLabel: string, writerLabel: string): string {
  switch (f.type) {
    case "FIXED_SIZE_MISMATCH":
      return `The size of FIXED type field at path '${path}' in the ${readerLabel} schema does not match with the ${writerLabel} schema`;
    case "TYPE_MISMATCH":
      return `The type (path '${path}') of a field in the ${readerLabel} schema does not match with the ${writerLabel} schema`;
    case "NAME_MISMATCH":
      return `The name of the schema has changed (path '${path}')`;
    case "MISSING_ENUM_SYMBOLS":
      return `The ${readerLabel} schema is missing enum symbols '${f.message}' at path '${path}' in the ${writerLabel} schema`;
    case "MISSING_UNION_BRANCH":
      return `The ${readerLabel} schema is missing a type inside a union field at path '${path}' in the ${writerLabel} schema`;
    case "READER_FIELD_MISSING_DEFAULT_VALUE":
      return `The field '${f.message}' at path '${path}' in the ${readerLabel} schema has no default value and is missing in the ${writerLabel} schema`;
  }
}

/** Reasons why data written with `writer` cannot be read with `reader`; empty when compatible. */
export function readProblems(reader: AvroNode, writer: AvroNode, options: ReadProblemsOptions = {}): Incompatibility[] {
  const newSide = options.newSchema ?? "reader";
  const [readerLabel, writerLabel] = newSide === "reader" ? ["new", "old"] : ["old", "new"];
  let result: Result;
  try {
    result = new Checker(options.avroVersion ?? "1.12").fresh(reader, writer);
  } catch (e) {
    if (!(e instanceof AmbiguousFieldError)) throw e;
    return [
      {
        type: "UNEXPECTED_EXCEPTION",
        path: "/",
        description: e.message,
        rendered: `Unexpected exception during compatibility check: ${e.message}`,
      },
    ];
  }
  return result.found.map((f) => {
    const path = pathOf(f.location);
    return { type: f.type, path, description: describe(f, path, readerLabel, writerLabel), additionalInfo: f.message };
  });
}
