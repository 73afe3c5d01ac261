// FileDescriptorProto → element tree, as Confluent's ProtobufSchema.toProtoFile(FileDescriptorProto)
// does for schemas registered as base64 descriptors (what confluent-kafka-python and other
// descriptor-based clients send). Types keep the fully-qualified `.pkg.Name` form of type_name, map
// fields stay repeated `XEntry` messages, and only the options Confluent copies are kept.
import type {
  DescriptorObject,
  EnumDescriptorObject,
  FieldDescriptorObject,
  FileDescriptorObject,
  MetaObject,
  OptionsObject,
  RangeObject,
  ServiceDescriptorObject,
} from "./descriptor-types.ts";
import type {
  EnumElement,
  ExtendElement,
  ExtensionsElement,
  FieldElement,
  Label,
  MessageElement,
  OneOfElement,
  OptionElement,
  OptionKind,
  OptionMap,
  OptionValue,
  ProtoFileElement,
  RangeValue,
  ReservedElement,
  ServiceElement,
  Syntax,
  TypeElement,
} from "./elements.ts";

/** Standard options Confluent copies, in its order, with the kind it gives them. */
const FILE_OPTIONS: [string, OptionKind][] = [
  ["java_package", "STRING"],
  ["java_outer_classname", "STRING"],
  ["java_multiple_files", "BOOLEAN"],
  ["java_generate_equals_and_hash", "BOOLEAN"],
  ["java_string_check_utf8", "BOOLEAN"],
  ["optimize_for", "ENUM"],
  ["go_package", "STRING"],
  ["cc_generic_services", "BOOLEAN"],
  ["java_generic_services", "BOOLEAN"],
  ["py_generic_services", "BOOLEAN"],
  ["deprecated", "BOOLEAN"],
  ["cc_enable_arenas", "BOOLEAN"],
  ["objc_class_prefix", "STRING"],
  ["csharp_namespace", "STRING"],
  ["swift_prefix", "STRING"],
  ["php_class_prefix", "STRING"],
  ["php_namespace", "STRING"],
  ["php_metadata_namespace", "STRING"],
  ["ruby_package", "STRING"],
];
const MESSAGE_OPTIONS: [string, OptionKind][] = [
  ["no_standard_descriptor_accessor", "BOOLEAN"],
  ["deprecated", "BOOLEAN"],
  ["map_entry", "BOOLEAN"],
];
const FIELD_OPTIONS: [string, OptionKind][] = [
  ["ctype", "ENUM"],
  ["packed", "BOOLEAN"],
  ["jstype", "ENUM"],
  ["deprecated", "BOOLEAN"],
  ["debug_redact", "BOOLEAN"],
  ["retention", "ENUM"],
];
const ENUM_OPTIONS: [string, OptionKind][] = [
  ["allow_alias", "BOOLEAN"],
  ["deprecated", "BOOLEAN"],
];
const ENUM_VALUE_OPTIONS: [string, OptionKind][] = [
  ["deprecated", "BOOLEAN"],
  ["debug_redact", "BOOLEAN"],
];
const METHOD_OPTIONS: [string, OptionKind][] = [
  ["deprecated", "BOOLEAN"],
  ["idempotency_level", "ENUM"],
];

const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** protobufjs's key for a Confluent meta extension in a decoded options object. */
const META_KEY = (name: string): string => `.confluent.${camel(name)}`;

function standardOptions(options: OptionsObject | undefined, wanted: [string, OptionKind][]): OptionElement[] {
  const out: OptionElement[] = [];
  if (!options) return out;
  for (const [name, kind] of wanted) {
    const v = options[camel(name)];
    if (v !== undefined) out.push({ name, kind, value: String(v), parenthesized: false });
  }
  return out;
}

/** ProtobufSchema.toOption(name, Meta): null when the meta is empty. */
function metaOption(options: OptionsObject | undefined, which: string): OptionElement | null {
  const meta = options?.[META_KEY(which)] as MetaObject | undefined;
  if (!meta) return null;
  const map: OptionMap = new Map();
  if (meta.doc) map.set("doc", meta.doc);
  const params = Object.entries(meta.params ?? {});
  if (params.length > 0) {
    map.set(
      "params",
      params.map(([key, value]): OptionValue => {
        // Confluent writes the value first for precision and scale, for backward compatibility.
        const entry: OptionMap =
          key === "precision" || key === "scale"
            ? new Map([
                ["value", value],
                ["key", key],
              ])
            : new Map([
                ["key", key],
                ["value", value],
              ]);
        return entry;
      }),
    );
  }
  if (meta.tags && meta.tags.length > 0) map.set("tags", [...meta.tags]);
  const rules: OptionValue[] = [];
  for (const rule of meta.rules ?? []) {
    const entry: OptionMap = new Map();
    if (rule.name) entry.set("name", rule.name);
    if (rule.doc) entry.set("doc", rule.doc);
    if (rule.expr) entry.set("expr", rule.expr);
    if (rule.sql) entry.set("sql", rule.sql);
    if (entry.size > 0) rules.push(entry);
  }
  if (rules.length > 0) map.set("rules", rules);
  return map.size === 0 ? null : { name: `confluent.${which}`, kind: "MAP", value: map, parenthesized: true };
}

function withMeta(options: OptionElement[], meta: OptionElement | null): OptionElement[] {
  if (meta) options.push(meta);
  return options;
}

function label(syntax: string, fd: FieldDescriptorObject): Label | null {
  if (fd.proto3Optional) return "optional";
  const isProto3 = syntax === "proto3";
  switch (fd.label) {
    case "LABEL_REQUIRED":
      return isProto3 ? null : "required";
    case "LABEL_REPEATED":
      return "repeated";
    case "LABEL_OPTIONAL":
    case undefined:
      return isProto3 ? null : "optional";
    default:
      throw new Error("Unsupported label");
  }
}

function dataType(fd: FieldDescriptorObject): string {
  if (fd.typeName !== undefined) return fd.typeName;
  return (fd.type ?? "TYPE_DOUBLE").replace(/^TYPE_/, "").toLowerCase();
}

function toField(syntax: string, fd: FieldDescriptorObject, inOneOf: boolean): FieldElement {
  const options = standardOptions(fd.options, FIELD_OPTIONS);
  const targets = fd.options?.targets;
  if (Array.isArray(targets))
    for (const t of targets) options.push({ name: "targets", kind: "ENUM", value: String(t), parenthesized: false });
  withMeta(options, metaOption(fd.options, "field_meta"));
  return {
    label: inOneOf ? null : label(syntax, fd),
    type: dataType(fd),
    name: fd.name ?? "",
    defaultValue: syntax !== "proto3" && fd.defaultValue !== undefined ? fd.defaultValue : null,
    jsonName: fd.jsonName ?? null,
    tag: fd.number ?? 0,
    options,
    position: null,
  };
}

/** Message reserved/extension ranges are end-exclusive, enum reserved ranges end-inclusive. */
function rangeValue(r: RangeObject, endExclusive: boolean): RangeValue {
  const start = r.start ?? 0;
  const end = (r.end ?? 0) - (endExclusive ? 1 : 0);
  return start === end ? start : { start, end };
}

function reserveds(
  ranges: RangeObject[] | undefined,
  names: string[] | undefined,
  endExclusive: boolean,
): ReservedElement[] {
  return [
    ...(ranges ?? []).map((r) => ({ values: [rangeValue(r, endExclusive)] })),
    ...(names ?? []).map((n) => ({ values: [n] })),
  ];
}

function extendElements(syntax: string, fields: FieldDescriptorObject[] | undefined): ExtendElement[] {
  const byExtendee = new Map<string, FieldElement[]>();
  for (const fd of fields ?? []) {
    const key = fd.extendee ?? "";
    let list = byExtendee.get(key);
    if (!list) byExtendee.set(key, (list = []));
    list.push(toField(syntax, fd, false));
  }
  return [...byExtendee].map(([name, f]) => ({ name, fields: f, position: null }));
}

function toExtensions(r: RangeObject): ExtensionsElement {
  const options: OptionElement[] = [];
  const declarations = r.options?.declaration;
  if (Array.isArray(declarations)) {
    for (const d of declarations as Record<string, unknown>[]) {
      const map: OptionMap = new Map();
      if (d.number !== undefined) map.set("number", { primitive: "NUMBER", value: String(d.number) });
      if (d.fullName !== undefined) map.set("full_name", String(d.fullName));
      if (d.type !== undefined) map.set("type", String(d.type));
      if (d.reserved !== undefined) map.set("reserved", { primitive: "BOOLEAN", value: String(d.reserved) });
      if (d.repeated !== undefined) map.set("repeated", { primitive: "BOOLEAN", value: String(d.repeated) });
      options.push({ name: "declaration", kind: "MAP", value: map, parenthesized: false });
    }
  }
  if (r.options?.verification !== undefined) {
    options.push({
      name: "verification",
      kind: "BOOLEAN",
      value: String(r.options.verification),
      parenthesized: false,
    });
  }
  return { values: [rangeValue(r, true)], options };
}

function toMessage(syntax: string, d: DescriptorObject): MessageElement {
  const oneOfs: OneOfElement[] = (d.oneofDecl ?? []).map((o) => ({
    name: o.name ?? "",
    fields: [],
    groups: [],
    options: [],
  }));
  const fields: FieldElement[] = [];
  for (const fd of d.field ?? []) {
    if (fd.oneofIndex !== undefined && !fd.proto3Optional)
      oneOfs[fd.oneofIndex]?.fields.push(toField(syntax, fd, true));
    else fields.push(toField(syntax, fd, false));
  }
  const nestedTypes: TypeElement[] = [
    ...(d.nestedType ?? []).map((n) => toMessage(syntax, n)),
    ...(d.enumType ?? []).map(toEnum),
  ];
  return {
    kind: "message",
    name: d.name ?? "",
    nestedTypes,
    options: withMeta(standardOptions(d.options, MESSAGE_OPTIONS), metaOption(d.options, "message_meta")),
    reserveds: reserveds(d.reservedRange, d.reservedName, true),
    fields,
    oneOfs: oneOfs.filter((o) => o.fields.length > 0),
    extensions: (d.extensionRange ?? []).map(toExtensions),
    groups: [],
    extendDeclarations: extendElements(syntax, d.extension),
    position: null,
  };
}

function toEnum(e: EnumDescriptorObject): EnumElement {
  return {
    kind: "enum",
    name: e.name ?? "",
    options: withMeta(standardOptions(e.options, ENUM_OPTIONS), metaOption(e.options, "enum_meta")),
    constants: (e.value ?? []).map((v) => ({
      name: v.name ?? "",
      tag: v.number ?? 0,
      options: withMeta(standardOptions(v.options, ENUM_VALUE_OPTIONS), metaOption(v.options, "enum_value_meta")),
    })),
    reserveds: reserveds(e.reservedRange, e.reservedName, false),
    position: null,
  };
}

function toService(s: ServiceDescriptorObject): ServiceElement {
  return {
    name: s.name ?? "",
    rpcs: (s.method ?? []).map((m) => ({
      name: m.name ?? "",
      requestType: m.inputType ?? "",
      responseType: m.outputType ?? "",
      requestStreaming: m.clientStreaming === true,
      responseStreaming: m.serverStreaming === true,
      options: standardOptions(m.options, METHOD_OPTIONS),
      position: null,
    })),
    options: standardOptions(s.options, [["deprecated", "BOOLEAN"]]),
  };
}

export function fileElementFromDescriptor(file: FileDescriptorObject): ProtoFileElement {
  // protoc leaves `syntax` out for proto2 files; Confluent then has no syntax at all.
  const syntaxText = file.syntax ?? "";
  const syntax: Syntax | null = syntaxText === "proto2" || syntaxText === "proto3" ? syntaxText : null;
  const imports: string[] = [];
  const publicImports: string[] = [];
  const weakImports: string[] = [];
  const publicSet = new Set(file.publicDependency ?? []);
  const weakSet = new Set(file.weakDependency ?? []);
  (file.dependency ?? []).forEach((dep, i) => {
    if (publicSet.has(i)) publicImports.push(dep);
    else if (weakSet.has(i)) weakImports.push(dep);
    else imports.push(dep);
  });
  return {
    packageName: file.package ? file.package : null,
    syntax,
    imports,
    publicImports,
    weakImports,
    types: [...(file.messageType ?? []).map((m) => toMessage(syntaxText, m)), ...(file.enumType ?? []).map(toEnum)],
    services: (file.service ?? []).map(toService),
    extendDeclarations: extendElements(syntaxText, file.extension),
    options: withMeta(standardOptions(file.options, FILE_OPTIONS), metaOption(file.options, "file_meta")),
  };
}
