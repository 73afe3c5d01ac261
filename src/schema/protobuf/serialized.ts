// `?format=serialized`: the FileDescriptorProto Confluent builds from the element tree
// (ProtobufSchema.toDynamicSchema(), via its DynamicSchema/MessageDefinition builders), base64.
// That builder is not protoc: type names stay as written (only `type` is resolved), proto3 fields
// get no label, oneof members come before the other fields, map fields become `<name>Entry`
// messages appended to the nested types, and the file is named "default".
import {
  encodeFileDescriptor,
  type DescriptorObject,
  type EnumDescriptorObject,
  type FieldDescriptorObject,
  type FileDescriptorObject,
  type MetaObject,
  type OptionsObject,
} from "./descriptor-types.ts";
import {
  isOptionPrimitive,
  protoType,
  SCALAR_TYPES,
  type EnumElement,
  type FieldElement,
  type MessageElement,
  type OptionElement,
  type OptionMap,
  type OptionValue,
  type RangeValue,
  type Syntax,
} from "./elements.ts";
import { transformOption } from "./canonical.ts";
import { findOptionValue, TypeContext, type SchemaFiles } from "./type-context.ts";

/**
 * ProtobufSchema.mergeOptions for one name (leading dot dropped): dotted options become maps and
 * the maps of repeated statements are merged, a key set twice collecting its values in a list.
 */
function option(options: readonly OptionElement[], name: string): OptionElement | undefined {
  let found: OptionElement | undefined;
  for (const o of options) {
    if ((o.name.startsWith(".") ? o.name.slice(1) : o.name) !== name) continue;
    const next = transformOption(o);
    if (found?.kind === "MAP" && next.kind === "MAP") {
      const merged: OptionMap = new Map(found.value as OptionMap);
      for (const [k, v] of next.value as OptionMap) {
        const previous = merged.get(k);
        merged.set(k, previous === undefined ? v : union(previous, v));
      }
      found = { ...next, value: merged };
    } else {
      found = next;
    }
  }
  return found;
}

function union(a: OptionValue, b: OptionValue): OptionValue[] {
  const out: OptionValue[] = [];
  const seen = new Set<string>();
  for (const v of [...(Array.isArray(a) ? a : [a]), ...(Array.isArray(b) ? b : [b])]) {
    const key = JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? [...x] : x));
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out;
}

function boolOption(options: readonly OptionElement[], name: string): boolean | undefined {
  const v = findOptionValue(options, name);
  return v === undefined ? undefined : v === "true";
}

function stringOption(options: readonly OptionElement[], name: string): string | undefined {
  return findOptionValue(options, name);
}

function primitive(v: OptionValue | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "string") return v;
  if (isOptionPrimitive(v)) return v.value;
  return undefined;
}

/** ProtobufSchema.findMeta: Confluent's meta option, as an aggregate or a dotted option. */
function metaFrom(options: readonly OptionElement[], name: string): MetaObject | undefined {
  const o = option(options, name);
  if (o === undefined) return undefined;
  const field = (key: string): OptionValue | undefined => {
    if (o.kind === "MAP" && o.value instanceof Map) return o.value.get(key);
    if (o.kind === "OPTION") {
      const inner = o.value as OptionElement;
      return inner.name === key ? (inner.value as OptionValue) : undefined;
    }
    return undefined;
  };
  const meta: MetaObject = {};
  const doc = primitive(field("doc"));
  if (doc !== undefined) meta.doc = doc;
  const params = field("params");
  const pairs = params instanceof Map ? [params] : Array.isArray(params) ? params : [];
  for (const p of pairs) {
    if (!(p instanceof Map)) continue;
    const key = primitive(p.get("key"));
    const value = primitive(p.get("value"));
    if (key !== undefined && value !== undefined) (meta.params ??= {})[key] = value;
  }
  const tags = field("tags");
  for (const t of Array.isArray(tags) ? tags : tags === undefined ? [] : [tags]) {
    const s = primitive(t);
    if (s !== undefined) (meta.tags ??= []).push(s);
  }
  const rules = field("rules");
  for (const r of Array.isArray(rules) ? rules : rules instanceof Map ? [rules] : []) {
    if (!(r instanceof Map)) continue;
    const rule: Record<string, string> = {};
    for (const k of ["name", "doc", "expr", "sql"]) {
      const s = primitive(r.get(k));
      if (s !== undefined) rule[k] = s;
    }
    (meta.rules ??= []).push(rule);
  }
  return meta;
}

function withMeta(
  options: OptionsObject,
  elementOptions: readonly OptionElement[],
  metaName: string,
): OptionsObject | undefined {
  const meta = metaFrom(elementOptions, `confluent.${metaName}`);
  if (meta !== undefined) options[`.confluent.${camel(metaName)}`] = meta;
  return Object.keys(options).length > 0 ? options : undefined;
}

const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function setIfDefined(target: OptionsObject, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

/** ProtobufSchema.toMapEntry: Guava LOWER_UNDERSCORE→UPPER_CAMEL only when there is an underscore. */
function mapEntryName(fieldName: string): string {
  const base = fieldName.includes("_")
    ? fieldName
        .split("_")
        .map((p) => (p.length > 0 ? p[0].toUpperCase() + p.slice(1).toLowerCase() : ""))
        .join("")
    : fieldName;
  return `${base}Entry`;
}

class DescriptorBuilder {
  constructor(
    private readonly ctx: TypeContext,
    private readonly syntax: Syntax | null,
  ) {}

  /** FieldDefinition.newBuilder(ctx, name, tag, type). */
  private baseField(name: string, tag: number, type: string): FieldDescriptorObject {
    const fd: FieldDescriptorObject = { name, number: tag };
    if (SCALAR_TYPES.has(type)) {
      fd.type = `TYPE_${type.toUpperCase()}`;
    } else {
      const full = this.ctx.resolve(type, true);
      const info = full === null ? undefined : this.ctx.typeForFullName(full, true);
      if (info) fd.type = info.type.kind === "message" ? "TYPE_MESSAGE" : "TYPE_ENUM";
      fd.typeName = type;
    }
    return fd;
  }

  /** ProtobufSchema.toDynamicField. */
  field(
    element: FieldElement,
    type: string,
    label: string | null,
    proto3Optional: boolean,
    oneofIndex: number | null,
    extendee: string | null,
  ): FieldDescriptorObject {
    const fd = this.baseField(element.name, element.tag, type);
    if (label !== null) fd.label = `LABEL_${label.toUpperCase()}`;
    if (proto3Optional) fd.proto3Optional = true;
    if (extendee !== null) fd.extendee = extendee;
    if (oneofIndex !== null) fd.oneofIndex = oneofIndex;
    if (element.defaultValue !== null) fd.defaultValue = element.defaultValue;
    if (element.jsonName !== null) fd.jsonName = element.jsonName;
    const o = element.options;
    const options: OptionsObject = {};
    setIfDefined(options, "ctype", stringOption(o, "ctype"));
    setIfDefined(options, "packed", boolOption(o, "packed"));
    setIfDefined(options, "jstype", stringOption(o, "jstype"));
    setIfDefined(options, "deprecated", boolOption(o, "deprecated"));
    setIfDefined(options, "debugRedact", boolOption(o, "debug_redact"));
    setIfDefined(options, "retention", stringOption(o, "retention"));
    const targets = o.filter((x) => x.name === "targets").map((x) => String(x.value));
    if (targets.length > 0) options.targets = targets;
    const merged = withMeta(options, o, "field_meta");
    if (merged) fd.options = merged;
    return fd;
  }

  message(m: MessageElement): DescriptorObject {
    const d: DescriptorObject = { name: m.name, field: [], nestedType: [], enumType: [], oneofDecl: [] };
    for (const t of m.nestedTypes) {
      this.ctx.inName(t.name, () => {
        if (t.kind === "message") d.nestedType?.push(this.message(t));
        else d.enumType?.push(this.enumType(t));
      });
    }
    const added = new Set<string>();
    for (const oneOf of m.oneOfs) {
      const index = d.oneofDecl?.length ?? 0;
      d.oneofDecl?.push({ name: oneOf.name });
      for (const f of oneOf.fields) {
        d.field?.push(this.field(f, f.type, "optional", false, index, null));
        added.add(f.name);
      }
    }
    // Fields after nested types, so that map-entry messages come last among them.
    for (const f of m.fields) {
      if (added.has(f.name)) continue;
      let label = f.label;
      let type = f.type;
      const pt = protoType(type);
      if (pt.isMap && pt.keyType && pt.valueType) {
        label = "repeated";
        type = mapEntryName(f.name);
        d.nestedType?.push({
          name: type,
          field: [this.baseField("key", 1, pt.keyType.text), this.baseField("value", 2, pt.valueType.text)],
          options: { mapEntry: true },
        });
      }
      if (label === "optional" && this.syntax === "proto3") {
        const index = d.oneofDecl?.length ?? 0;
        d.oneofDecl?.push({ name: `_${f.name}` });
        d.field?.push(this.field(f, type, "optional", true, index, null));
      } else {
        d.field?.push(this.field(f, type, label, false, null, null));
      }
    }
    const ranges = (values: readonly RangeValue[]): void => {
      for (const v of values) {
        if (typeof v === "string") (d.reservedName ??= []).push(v);
        else if (typeof v === "number") (d.reservedRange ??= []).push({ start: v, end: v + 1 });
        else (d.reservedRange ??= []).push({ start: v.start, end: v.end + 1 });
      }
    };
    for (const r of m.reserveds) ranges(r.values);
    for (const e of m.extensions) {
      for (const v of e.values) {
        if (typeof v === "number") (d.extensionRange ??= []).push({ start: v, end: v + 1 });
        else if (typeof v === "object") (d.extensionRange ??= []).push({ start: v.start, end: v.end + 1 });
      }
    }
    for (const e of m.extendDeclarations) {
      for (const f of e.fields) (d.extension ??= []).push(this.field(f, f.type, f.label, false, null, e.name));
    }
    const options: OptionsObject = {};
    setIfDefined(options, "noStandardDescriptorAccessor", boolOption(m.options, "no_standard_descriptor_accessor"));
    setIfDefined(options, "deprecated", boolOption(m.options, "deprecated"));
    setIfDefined(options, "mapEntry", boolOption(m.options, "map_entry"));
    const merged = withMeta(options, m.options, "message_meta");
    if (merged) d.options = merged;
    return d;
  }

  enumType(e: EnumElement): EnumDescriptorObject {
    const d: EnumDescriptorObject = { name: e.name, value: [] };
    const options: OptionsObject = {};
    setIfDefined(options, "allowAlias", boolOption(e.options, "allow_alias"));
    setIfDefined(options, "deprecated", boolOption(e.options, "deprecated"));
    for (const r of e.reserveds) {
      for (const v of r.values) {
        if (typeof v === "string") (d.reservedName ??= []).push(v);
        else if (typeof v === "number") (d.reservedRange ??= []).push({ start: v, end: v });
        else (d.reservedRange ??= []).push({ start: v.start, end: v.end });
      }
    }
    for (const c of e.constants) {
      const valueOptions: OptionsObject = {};
      setIfDefined(valueOptions, "deprecated", boolOption(c.options, "deprecated"));
      setIfDefined(valueOptions, "debugRedact", boolOption(c.options, "debug_redact"));
      const merged = withMeta(valueOptions, c.options, "enum_value_meta");
      d.value?.push({ name: c.name, number: c.tag, ...(merged ? { options: merged } : {}) });
    }
    const merged = withMeta(options, e.options, "enum_meta");
    if (merged) d.options = merged;
    return d;
  }
}

const FILE_STRING_OPTIONS = [
  "java_package",
  "java_outer_classname",
  "go_package",
  "objc_class_prefix",
  "csharp_namespace",
  "swift_prefix",
  "php_class_prefix",
  "php_namespace",
  "php_metadata_namespace",
  "ruby_package",
  "optimize_for",
];
const FILE_BOOL_OPTIONS = [
  "java_multiple_files",
  "java_generate_equals_and_hash",
  "java_string_check_utf8",
  "cc_generic_services",
  "java_generic_services",
  "py_generic_services",
  "deprecated",
  "cc_enable_arenas",
];

/** The FileDescriptorProto Confluent serves for `format=serialized`. */
function fileDescriptorFor(schema: SchemaFiles): FileDescriptorObject {
  const ctx = new TypeContext();
  ctx.collectTypeInfo(schema, true);
  const main = schema.main;
  const builder = new DescriptorBuilder(ctx, main.syntax);
  const file: FileDescriptorObject = { name: "default", messageType: [], enumType: [] };
  if (main.syntax !== null) file.syntax = main.syntax;
  if (main.packageName !== null) file.package = main.packageName;
  for (const t of main.types) {
    ctx.inName(t.name, () => {
      if (t.kind === "message") file.messageType?.push(builder.message(t));
      else file.enumType?.push(builder.enumType(t));
    });
  }
  file.service = main.services.map((s) => {
    const options: OptionsObject = {};
    setIfDefined(options, "deprecated", boolOption(s.options, "deprecated"));
    return {
      name: s.name,
      method: s.rpcs.map((r) => {
        const methodOptions: OptionsObject = {};
        setIfDefined(methodOptions, "deprecated", boolOption(r.options, "deprecated"));
        setIfDefined(methodOptions, "idempotencyLevel", stringOption(r.options, "idempotency_level"));
        return {
          name: r.name,
          inputType: r.requestType,
          outputType: r.responseType,
          clientStreaming: r.requestStreaming,
          serverStreaming: r.responseStreaming,
          ...(Object.keys(methodOptions).length > 0 ? { options: methodOptions } : {}),
        };
      }),
      ...(Object.keys(options).length > 0 ? { options } : {}),
    };
  });
  for (const e of main.extendDeclarations) {
    for (const f of e.fields) (file.extension ??= []).push(builder.field(f, f.type, f.label, false, null, e.name));
  }
  const known = new Set(schema.dependencies.keys());
  const dependency: string[] = [];
  const publicDependency: number[] = [];
  for (const i of main.imports) if (known.has(i) && !dependency.includes(i)) dependency.push(i);
  for (const i of main.publicImports) {
    if (!known.has(i)) continue;
    let index = dependency.indexOf(i);
    if (index < 0) index = dependency.push(i) - 1;
    publicDependency.push(index);
  }
  if (dependency.length > 0) file.dependency = dependency;
  if (publicDependency.length > 0) file.publicDependency = publicDependency;
  const options: OptionsObject = {};
  for (const name of FILE_STRING_OPTIONS) setIfDefined(options, camel(name), stringOption(main.options, name));
  for (const name of FILE_BOOL_OPTIONS) setIfDefined(options, camel(name), boolOption(main.options, name));
  const merged = withMeta(options, main.options, "file_meta");
  if (merged) file.options = merged;
  return file;
}

export function serializedFileDescriptor(schema: SchemaFiles): string {
  return Buffer.from(encodeFileDescriptor(fileDescriptorFor(schema))).toString("base64");
}
