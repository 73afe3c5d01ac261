// Confluent's Protobuf compatibility check (protobuf/diff: SchemaDiff, MessageSchemaDiff,
// FieldSchemaDiff, EnumSchemaDiff): the old ("original") and new ("update") element trees are walked
// together, fields matched by tag, and every difference recorded with its path (#/Msg/oneof/3);
// the ones outside COMPATIBLE_CHANGES make the schemas incompatible. Differences come out in
// Confluent's order, Java hash-set iteration included.
import type { Incompatibility } from "../format.ts";
import {
  protoType,
  type EnumElement,
  type FieldElement,
  type Label,
  type MessageElement,
  type ProtoType,
  type TypeElement,
} from "./elements.ts";
import { JavaHashKeys } from "../../jvm/hash-order.ts";
import { mapTypeOf, TypeContext, type Difference, type SchemaFiles } from "./type-context.ts";

const COMPATIBLE_CHANGES: ReadonlySet<string> = new Set([
  "MESSAGE_ADDED",
  "MESSAGE_MOVED",
  "ENUM_ADDED",
  "ENUM_REMOVED",
  "ENUM_CONST_ADDED",
  "ENUM_CONST_CHANGED",
  "ENUM_CONST_REMOVED",
  "FIELD_ADDED",
  "FIELD_REMOVED",
  "FIELD_NAME_CHANGED",
  "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
  "ONEOF_ADDED",
  "ONEOF_REMOVED",
  "ONEOF_FIELD_ADDED",
  "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
]);

/** All differences between `original` (the writer) and `update` (the reader), compatible ones included. */
export function schemaDifferences(original: SchemaFiles, update: SchemaFiles): Difference[] {
  const ctx = new TypeContext(COMPATIBLE_CHANGES);
  ctx.collectTypeInfo(original, true);
  ctx.collectTypeInfo(update, false);
  if ((original.main.packageName ?? null) !== (update.main.packageName ?? null)) ctx.addDifference("PACKAGE_CHANGED");
  compareTypeElements(ctx, original.main.types, update.main.types);
  return ctx.differences;
}

/**
 * Difference.error(): the description, with its two %s filled in as SchemaValidatorBuilder does —
 * first the reader ("update") side, then the writer ("original") side.
 */
export function describe(diff: Difference, readerLabel: string, writerLabel: string): string {
  const p = diff.fullPath;
  const templates: Record<string, string> = {
    PACKAGE_CHANGED: `The package at '${p}' in the %s schema does not match the package in the %s schema`,
    MESSAGE_REMOVED: `The %s schema is missing a MESSAGE type at path '${p}' in the %s schema`,
    FIELD_KIND_CHANGED: `The type of a field at path '${p}' in the %s schema does not match the %s schema`,
    FIELD_SCALAR_KIND_CHANGED: `The kind of a SCALAR field at path '${p}' in the %s schema does not match its kind in the %s schema`,
    FIELD_NAMED_TYPE_CHANGED: `The type of a MESSAGE field at path '${p}' in the %s schema does not match its type in the %s schema`,
    FIELD_NUMERIC_LABEL_CHANGED: `The label for a NUMERIC field at path '${p}' in the %s schema does not match its label in the %s schema`,
    REQUIRED_FIELD_ADDED: `A required field  at path '${p}' in the %s schema is missing in the %s schema`,
    REQUIRED_FIELD_REMOVED: `The %s schema is missing a required field at path: '${p}' in the %s schema`,
    ONEOF_FIELD_REMOVED: `The %s schema is missing a oneof field at path '${p}' in the %s schema`,
    ONEOF_FIELD_MOVED_TO_TOP_LEVEL: `The oneof field at path '${p}' in the %s schema was moved out of its oneof to a top-level field in the %s schema`,
    MULTIPLE_FIELDS_MOVED_TO_ONEOF: `Multiple fields in the oneof at path '${p}' in the %s schema are outside a oneof in the %s schema`,
    FIELD_MOVED_TO_EXISTING_ONEOF: `A field in the oneof at path '${p}' in the %s schema is outside an existing oneof in the %s schema`,
  };
  const labels = [readerLabel, writerLabel];
  return (templates[diff.type] ?? "").replace(/%s/g, () => labels.shift() ?? "%s");
}

/**
 * Problems reading `writer` data with `reader`, as Confluent reports them: SchemaDiff.compare
 * (original = writer, update = reader), incompatible differences only.
 */
export function readProblems(
  reader: SchemaFiles,
  writer: SchemaFiles,
  newSchema: "reader" | "writer",
): Incompatibility[] {
  const readerLabel = newSchema === "reader" ? "new" : "old";
  const writerLabel = newSchema === "reader" ? "old" : "new";
  return schemaDifferences(writer, reader)
    .filter((d) => !COMPATIBLE_CHANGES.has(d.type))
    .map((d) => ({ type: d.type, path: d.fullPath, description: describe(d, readerLabel, writerLabel) }));
}

function compareTypeElements(ctx: TypeContext, original: readonly TypeElement[], update: readonly TypeElement[]): void {
  const o = indexTypes(original);
  const u = indexTypes(update);
  const messageNames = hashSetUnion(o.messageOrder, u.messageOrder);
  const enumNames = hashSetUnion(o.enumOrder, u.enumOrder);

  for (const name of messageNames) {
    ctx.inName(name, () => {
      const originalMessage = o.messages.get(name);
      const updateMessage = u.messages.get(name);
      if (updateMessage === undefined) {
        const info = ctx.getType(name, true);
        if (info !== undefined && !info.isMap) ctx.addDifference("MESSAGE_REMOVED");
      } else if (originalMessage === undefined) {
        const info = ctx.getType(name, false);
        if (info !== undefined && !info.isMap) ctx.addDifference("MESSAGE_ADDED");
      } else {
        compareMessages(ctx, originalMessage, updateMessage);
        // Moving a message is compatible: message indexes are relative to the writer's schema.
        if (o.messageIndexes.get(name) !== u.messageIndexes.get(name)) ctx.addDifference("MESSAGE_MOVED");
      }
    });
  }
  for (const name of enumNames) {
    ctx.inName(name, () => {
      const originalEnum = o.enums.get(name);
      const updateEnum = u.enums.get(name);
      if (updateEnum === undefined) ctx.addDifference("ENUM_REMOVED");
      else if (originalEnum === undefined) ctx.addDifference("ENUM_ADDED");
      else compareEnums(ctx, originalEnum, updateEnum);
    });
  }
}

interface TypeIndex {
  messages: Map<string, MessageElement>;
  messageIndexes: Map<string, number>;
  enums: Map<string, EnumElement>;
  /** Key order of the HashMaps Confluent fills (what `new HashSet<>(map.keySet())` then sees). */
  messageOrder: string[];
  enumOrder: string[];
}

function indexTypes(types: readonly TypeElement[]): TypeIndex {
  const messages = new Map<string, MessageElement>();
  const messageIndexes = new Map<string, number>();
  const enums = new Map<string, EnumElement>();
  let index = 0;
  for (const t of types) {
    if (t.kind === "message") {
      messages.set(t.name, t);
      messageIndexes.set(t.name, index++);
    } else {
      enums.set(t.name, t);
    }
  }
  return {
    messages,
    messageIndexes,
    enums,
    messageOrder: JavaHashKeys.of(messages.keys()).keys(),
    enumOrder: JavaHashKeys.of(enums.keys()).keys(),
  };
}

/** `Set s = new HashSet<>(a); s.addAll(b)` iteration order (a's copy sized as before JDK 19). */
function hashSetUnion<K extends string | number>(a: K[], b: K[]): K[] {
  const set = JavaHashKeys.copyOf(a, true, "jdk17");
  set.addAll(b);
  return set.keys();
}

function compareEnums(ctx: TypeContext, original: EnumElement, update: EnumElement): void {
  const originalByTag = new Map(original.constants.map((c) => [c.tag, c] as const));
  const updateByTag = new Map(update.constants.map((c) => [c.tag, c] as const));
  const tags = hashSetUnion(JavaHashKeys.of(originalByTag.keys()).keys(), JavaHashKeys.of(updateByTag.keys()).keys());
  for (const tag of tags) {
    ctx.inPath(String(tag), () => {
      const o = originalByTag.get(tag);
      const u = updateByTag.get(tag);
      if (u === undefined) ctx.addDifference("ENUM_CONST_REMOVED");
      else if (o === undefined) ctx.addDifference("ENUM_CONST_ADDED");
      else if (o.name !== u.name) ctx.addDifference("ENUM_CONST_CHANGED");
    });
  }
}

interface FieldIndex {
  byTag: Map<number, FieldElement>;
  tagToOneOf: Map<number, string>;
  oneOfs: Map<string, FieldElement[]>;
}

function indexFields(message: MessageElement): FieldIndex {
  const byTag = new Map<number, FieldElement>();
  const tagToOneOf = new Map<number, string>();
  const oneOfs = new Map<string, FieldElement[]>();
  for (const f of message.fields) byTag.set(f.tag, f);
  for (const o of message.oneOfs) {
    oneOfs.set(o.name, o.fields);
    for (const f of o.fields) {
      byTag.set(f.tag, f);
      tagToOneOf.set(f.tag, o.name);
    }
  }
  return { byTag, tagToOneOf, oneOfs };
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compareMessages(ctx: TypeContext, original: MessageElement, update: MessageElement): void {
  // A message already being compared further up (a recursive type) is not compared again; its
  // nested types still are, as in MessageSchemaDiff.
  const entered = !ctx.schemas.has(original);
  if (entered) ctx.schemas.add(original);
  try {
    if (entered) compareMessageBodies(ctx, original, update);
    compareTypeElements(ctx, original.nestedTypes, update.nestedTypes);
  } finally {
    if (entered) ctx.schemas.delete(original);
  }
}

function compareMessageBodies(ctx: TypeContext, original: MessageElement, update: MessageElement): void {
  const o = indexFields(original);
  const u = indexFields(update);

  // A oneof gone by name with none of its members left anywhere was deleted as a whole.
  const deletedOneOfs = new Set<string>();
  for (const [name, fields] of o.oneOfs) {
    if (!u.oneOfs.has(name) && !fields.some((f) => u.byTag.has(f.tag))) deletedOneOfs.add(name);
  }

  // Fields from more than one original group (a oneof, or each top-level field on its own) now
  // sharing a oneof are newly mutually exclusive.
  for (const oneOf of update.oneOfs) {
    ctx.inPath(oneOf.name, () => {
      const groups = new Set<string>();
      let movedIn = 0;
      for (const f of oneOf.fields) {
        const from = o.tagToOneOf.get(f.tag);
        if (from !== undefined) {
          groups.add(`oneof:${from}`);
        } else if (o.byTag.has(f.tag)) {
          groups.add(`field:${f.tag}`);
          movedIn++;
        }
      }
      if (groups.size > 1)
        ctx.addDifference(movedIn > 1 ? "MULTIPLE_FIELDS_MOVED_TO_ONEOF" : "FIELD_MOVED_TO_EXISTING_ONEOF");
    });
  }

  for (const name of [...new Set([...o.oneOfs.keys(), ...u.oneOfs.keys()])].sort(byCodeUnits)) {
    ctx.inPath(name, () => {
      if (!u.oneOfs.has(name)) ctx.addDifference("ONEOF_REMOVED");
      else if (!o.oneOfs.has(name)) ctx.addDifference("ONEOF_ADDED");
    });
  }

  for (const tag of [...new Set([...o.byTag.keys(), ...u.byTag.keys()])].sort((a, b) => a - b)) {
    const originalField = o.byTag.get(tag);
    const updateField = u.byTag.get(tag);
    const originalOneOf = o.tagToOneOf.get(tag);
    const updateOneOf = u.tagToOneOf.get(tag);
    const at = (oneOf: string | undefined, fn: () => void): void => {
      if (oneOf !== undefined) ctx.inPath(oneOf, () => ctx.inPath(String(tag), fn));
      else ctx.inPath(String(tag), fn);
    };
    if (updateField === undefined) {
      if (originalOneOf !== undefined) {
        if (!deletedOneOfs.has(originalOneOf)) at(originalOneOf, () => ctx.addDifference("ONEOF_FIELD_REMOVED"));
      } else {
        at(undefined, () =>
          ctx.addDifference(originalField?.label === "required" ? "REQUIRED_FIELD_REMOVED" : "FIELD_REMOVED"),
        );
      }
    } else if (originalField === undefined) {
      if (updateOneOf !== undefined) at(updateOneOf, () => ctx.addDifference("ONEOF_FIELD_ADDED"));
      else
        at(undefined, () =>
          ctx.addDifference(updateField.label === "required" ? "REQUIRED_FIELD_ADDED" : "FIELD_ADDED"),
        );
    } else {
      if (originalOneOf !== undefined && updateOneOf === undefined)
        at(undefined, () => ctx.addDifference("ONEOF_FIELD_MOVED_TO_TOP_LEVEL"));
      at(updateOneOf, () => compareFields(ctx, originalField, updateField));
    }
  }
}

function compareFields(ctx: TypeContext, original: FieldElement, update: FieldElement): void {
  if (original.name !== update.name) ctx.addDifference("FIELD_NAME_CHANGED");
  compareLabelsAndTypes(ctx, original.label, update.label, protoType(original.type), protoType(update.type));
}

type Kind = "SCALAR" | "MAP" | "MESSAGE";

function kindOf(ctx: TypeContext, type: ProtoType, isOriginal: boolean): Kind {
  if (type.isScalar) return "SCALAR";
  if (type.isMap) return "MAP";
  return ctx.getType(type.text, isOriginal)?.type.kind === "enum" ? "SCALAR" : "MESSAGE";
}

/** Wire-compatible scalar groups (https://protobuf.dev/programming-guides/proto3/#updating). */
function scalarKind(ctx: TypeContext, type: ProtoType, isOriginal: boolean): string {
  if (ctx.getType(type.text, isOriginal)?.type.kind === "enum") return "GENERAL_NUMBER";
  switch (type.text) {
    case "int32":
    case "int64":
    case "uint32":
    case "uint64":
    case "bool":
      return "GENERAL_NUMBER";
    case "sint32":
    case "sint64":
      return "SIGNED_NUMBER";
    case "string":
    case "bytes":
      return "STRING_OR_BYTES";
    case "fixed32":
    case "sfixed32":
      return "FIXED32";
    case "fixed64":
    case "sfixed64":
      return "FIXED64";
    case "float":
      return "FLOAT";
    case "double":
      return "DOUBLE";
    default:
      throw new Error(`Unknown type ${type.text}`);
  }
}

function compareLabelsAndTypes(
  ctx: TypeContext,
  originalLabel: Label | null,
  updateLabel: Label | null,
  originalType: ProtoType,
  updateType: ProtoType,
): void {
  // References to map-entry messages (schemas from descriptors) count as the map they stand for.
  const originalInfo = ctx.getType(originalType.text, true);
  if (originalInfo?.isMap) originalType = mapTypeOf(originalInfo) ?? originalType;
  const updateInfo = ctx.getType(updateType.text, false);
  if (updateInfo?.isMap) updateType = mapTypeOf(updateInfo) ?? updateType;

  const originalKind = kindOf(ctx, originalType, true);
  const updateKind = kindOf(ctx, updateType, false);
  if (originalKind !== updateKind) {
    ctx.addDifference("FIELD_KIND_CHANGED");
    return;
  }
  if (originalKind === "SCALAR") {
    const o = scalarKind(ctx, originalType, true);
    const u = scalarKind(ctx, updateType, false);
    if (o !== u) ctx.addDifference("FIELD_SCALAR_KIND_CHANGED");
    else if (originalLabel !== null && updateLabel !== null && originalLabel !== updateLabel) {
      ctx.addDifference(
        o === "STRING_OR_BYTES" ? "FIELD_STRING_OR_BYTES_LABEL_CHANGED" : "FIELD_NUMERIC_LABEL_CHANGED",
      );
    }
  } else if (originalKind === "MESSAGE") {
    compareMessageTypes(ctx, originalType, updateType);
  } else if (originalType.keyType && originalType.valueType && updateType.keyType && updateType.valueType) {
    compareLabelsAndTypes(ctx, null, null, originalType.keyType, updateType.keyType);
    compareLabelsAndTypes(ctx, null, null, originalType.valueType, updateType.valueType);
  }
}

function compareMessageTypes(ctx: TypeContext, original: ProtoType, update: ProtoType): void {
  const originalFullName = ctx.resolve(original.text, true);
  const updateFullName = ctx.resolve(update.text, false);
  if (originalFullName === null || updateFullName === null) {
    if (original.text !== update.text) ctx.addDifference("FIELD_NAMED_TYPE_CHANGED");
    return;
  }
  const originalType = ctx.getType(originalFullName, true);
  const updateType = ctx.getType(updateFullName, false);
  if (!originalType || !updateType) return;
  const local = (full: string, pkg: string): string => (full.startsWith(`${pkg}.`) ? full.slice(pkg.length + 1) : full);
  const originalLocal = local(originalFullName, originalType.packageName);
  const updateLocal = local(updateFullName, updateType.packageName);
  if (originalLocal !== updateLocal) {
    ctx.addDifference("FIELD_NAMED_TYPE_CHANGED");
    return;
  }
  const o = originalType.reference;
  const u = updateType.reference;
  // Local types are compared by the main walk; a referenced type only when its version changed.
  if (o === null || u === null || o.subject !== u.subject || o.version !== u.version) {
    if (originalType.type.kind !== "message" || updateType.type.kind !== "message") return;
    const sub = ctx.subcontext();
    sub.setPackageName(originalType.packageName, true);
    sub.setPackageName(updateType.packageName, false);
    sub.setFullName(originalLocal);
    compareMessages(sub, originalType.type, updateType.type);
    ctx.differences.push(...sub.differences);
    if (!sub.isCompatible()) ctx.addDifference("FIELD_NAMED_TYPE_CHANGED");
  }
}
