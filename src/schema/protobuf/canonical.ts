// Confluent's printed forms of a .proto file (ProtobufSchemaUtils.toString / toNormalizedString):
// the canonical string stored and compared for identity, and the normalized one used with
// normalize=true (types fully qualified, fields/constants/options/imports sorted, map-entry
// messages turned back into map<> fields).
import {
  isOptionElement,
  isOptionPrimitive,
  MAX_TAG_VALUE,
  protoType,
  type EnumConstantElement,
  type EnumElement,
  type ExtendElement,
  type ExtensionsElement,
  type FieldElement,
  type GroupElement,
  type MessageElement,
  type OneOfElement,
  type OptionElement,
  type Position,
  type OptionKind,
  type OptionMap,
  type OptionValue,
  type ProtoFileElement,
  type ProtoType,
  type RangeValue,
  type ReservedElement,
  type RpcElement,
  type ServiceElement,
  type TypeElement,
} from "./elements.ts";
import { normalizeNumberText } from "../../jvm/decimal-format.ts";
import { mapTypeOf, TypeContext, type SchemaFiles } from "./type-context.ts";

/** A problem found while printing, with the declaration it concerns when known. */
export class SchemaProblem extends Error {
  constructor(
    message: string,
    readonly position: Position | null,
  ) {
    super(message);
    this.name = "SchemaProblem";
  }
}

/** A type name the normalized form could not qualify (Confluent: "Could not resolve type: X"). */
export class UnresolvedTypeError extends SchemaProblem {
  constructor(
    readonly typeName: string,
    position: Position | null = null,
  ) {
    super(`Could not resolve type: ${typeName}`, position);
    this.name = "UnresolvedTypeError";
  }
}

/** Runs `fn`, attributing position-less problems to `position`. */
function at<T>(position: Position | null, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof UnresolvedTypeError && e.position === null) throw new UnresolvedTypeError(e.typeName, position);
    if (e instanceof SchemaProblem) throw e;
    if (e instanceof Error) throw new SchemaProblem(e.message, position);
    throw e;
  }
}

class FormatContext extends TypeContext {
  constructor(readonly normalize: boolean) {
    super();
  }

  /** "." + the resolved full name; throws when unresolvable. */
  qualify(type: string): string {
    const resolved = this.resolve(type, true);
    if (resolved === null) throw new UnresolvedTypeError(type);
    return `.${resolved}`;
  }

  filterOptions(options: readonly OptionElement[]): OptionElement[] {
    if (options.length === 0 || !this.normalize) return [...options];
    const qualified = options.map((o) => {
      if (o.parenthesized) {
        const resolved = this.resolveExtendField(o.name, true);
        if (resolved !== null) return transformOption({ ...o, name: resolved });
      }
      return o;
    });
    const sorted = [...qualified].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const groups = new Map<string, OptionElement[]>();
    for (const o of sorted) {
      const g = groups.get(o.name);
      if (g) g.push(o);
      else groups.set(o.name, [o]);
    }
    const out: OptionElement[] = [];
    for (const [name, list] of groups) {
      const info = this.extendFieldForFullName(name, true);
      if (info && !info.repeated) out.push(list.reduce((a, b) => this.mergeOption(info.field, a, b)));
      else out.push(...list);
    }
    return out;
  }

  private mergeOption(field: FieldElement, existing: OptionElement, replacement: OptionElement): OptionElement {
    const r = transformOption(replacement);
    if (existing.kind === "MAP" && r.kind === "MAP") {
      return {
        name: r.name,
        kind: "MAP",
        value: this.mergeMaps(field, existing.value as OptionMap, r.value as OptionMap),
        parenthesized: r.parenthesized,
      };
    }
    return r;
  }

  private mergeMaps(container: FieldElement, existing: OptionMap, replacement: OptionMap): OptionMap {
    const type = this.messageTypeOf(container);
    const merged: OptionMap = new Map(existing);
    for (const [key, value] of replacement) {
      const nested = type ? findField(type, key) : null;
      const previous = merged.get(key);
      merged.set(key, previous === undefined ? value : this.mergeValues(nested, previous, value));
    }
    return merged;
  }

  private mergeValues(field: FieldElement | null, v1: OptionValue, v2: OptionValue): OptionValue {
    const singular = field !== null && field.label !== "repeated";
    if (singular && v1 instanceof Map && v2 instanceof Map && this.messageTypeOf(field) !== null)
      return this.mergeMaps(field, v1, v2);
    if (singular) return v2;
    const out: OptionValue[] = [];
    const seen = new Set<string>();
    for (const v of [...(Array.isArray(v1) ? v1 : [v1]), ...(Array.isArray(v2) ? v2 : [v2])]) {
      const key = valueKey(v);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(v);
      }
    }
    return out;
  }

  private messageTypeOf(field: FieldElement | null): MessageElement | null {
    if (field === null) return null;
    const info = this.getType(field.type, true);
    return info?.type.kind === "message" ? info.type : null;
  }
}

function findField(message: MessageElement, name: string): FieldElement | null {
  return (
    message.fields.find((f) => f.name === name) ??
    message.oneOfs.flatMap((o) => o.fields).find((f) => f.name === name) ??
    null
  );
}

/** Structural identity of an option value (Java equals), for de-duplicating merged lists. */
function valueKey(v: OptionValue): string {
  if (typeof v === "string") return `s:${v}`;
  if (isOptionPrimitive(v)) return `p:${v.primitive}:${v.value}`;
  if (v instanceof Map) return `m:{${[...v].map(([k, x]) => `${k}=${valueKey(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `l:[${v.map(valueKey).join(",")}]`;
  return `o:${v.name}:${v.kind}:${valueKey(v.value as OptionValue)}`;
}

/** ProtobufSchema.transform: a dotted option `(a).b = 1` becomes the map `(a) = { b: 1 }`. */
export function transformOption(option: OptionElement): OptionElement {
  if (option.kind !== "OPTION") return option;
  return { name: option.name, kind: "MAP", value: transformMap(option), parenthesized: option.parenthesized };
}

function transformMap(option: OptionElement): OptionMap {
  const inner = option.value as OptionElement;
  let value: OptionValue;
  if (inner.kind === "BOOLEAN" || inner.kind === "ENUM" || inner.kind === "NUMBER")
    value = { primitive: inner.kind, value: inner.value as string };
  else if (inner.kind === "OPTION") value = transformMap(inner);
  else value = inner.value as OptionValue;
  return new Map([[inner.name, value]]);
}

/** Java's String.split("\n") followed by indenting every line (by two spaces, or `prefix`). */
function appendIndented(out: string[], value: string, prefix = "  "): void {
  const lines = value.split("\n");
  while (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 1 && lines[0] === "" && value !== "") lines.pop();
  for (const line of lines) out.push(`${prefix}${line}\n`);
}

const indented = (value: string, prefix = "  "): string => {
  const out: string[] = [];
  appendIndented(out, value, prefix);
  return out.join("");
};

/** `text` (ending with a newline) with `prefix` before each of its lines, blank ones included. */
const prefixLines = (text: string, prefix: string): string =>
  prefix === "" ? text : `${prefix}${text.slice(0, -1).replaceAll("\n", `\n${prefix}`)}\n`;

/** ProtobufSchemaUtils.escapeChars. */
export function escapeChars(input: string): string {
  let out = "";
  for (const c of input) {
    switch (c) {
      case "\u0007":
        out += "\\a";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\u000b":
        out += "\\v";
        break;
      case "\\":
        out += "\\\\";
        break;
      case "'":
        out += "\\'";
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += c;
    }
  }
  return out;
}

class Printer {
  constructor(private readonly ctx: FormatContext) {}

  private get normalize(): boolean {
    return this.ctx.normalize;
  }

  file(file: ProtoFileElement): string {
    let sb = "";
    if (file.syntax !== null && (!this.normalize || file.syntax === "proto3")) sb += `syntax = "${file.syntax}";\n`;
    if (file.packageName !== null) sb += `package ${file.packageName};\n`;
    if (file.imports.length > 0 || file.publicImports.length > 0) {
      sb += "\n";
      for (const i of this.sortedDistinct(file.imports)) sb += `import "${i}";\n`;
      for (const i of this.sortedDistinct(file.publicImports)) sb += `import public "${i}";\n`;
    }
    const options = this.ctx.filterOptions(file.options);
    if (options.length > 0) {
      sb += "\n";
      for (const o of options) sb += this.optionStatement(o);
    }
    const types = this.filterTypes(file.types);
    if (types.length > 0) {
      sb += "\n";
      // Message order is kept: clients compute message indexes from the non-normalized schema.
      for (const t of types) if (t.kind === "message") sb += this.ctx.inName(t.name, () => this.message(t));
      for (const t of types) if (t.kind === "enum") sb += this.ctx.inName(t.name, () => this.enumType(t));
    }
    if (file.extendDeclarations.length > 0) {
      sb += "\n";
      for (const e of this.extendElements(file.extendDeclarations)) sb += this.extend(e);
    }
    if (file.services.length > 0) {
      sb += "\n";
      for (const s of file.services) sb += this.service(s);
    }
    return sb;
  }

  private sortedDistinct(list: readonly string[]): readonly string[] {
    return this.normalize ? [...new Set(list)].sort() : list;
  }

  private filterTypes(types: readonly TypeElement[]): TypeElement[] {
    if (!this.normalize) return [...types];
    // Synthetic map-entry messages (from descriptors) are printed as map<> fields instead.
    return types.filter((t) => t.kind !== "message" || !this.ctx.getType(t.name, true)?.isMap);
  }

  private extendElements(list: readonly ExtendElement[]): ExtendElement[] {
    if (!this.normalize) return [...list];
    const grouped = new Map<string, FieldElement[]>();
    for (const e of list) {
      for (const f of e.fields) {
        const name = at(e.position, () => this.ctx.qualify(e.name));
        const g = grouped.get(name);
        if (g) g.push(f);
        else grouped.set(name, [f]);
      }
    }
    return [...grouped].map(([name, fields]) => ({ name, fields, position: null }));
  }

  private service(service: ServiceElement): string {
    let sb = `service ${service.name} {`;
    const options = this.ctx.filterOptions(service.options);
    if (options.length > 0) {
      sb += "\n";
      for (const o of options) sb += indented(this.optionStatement(o));
    }
    if (service.rpcs.length > 0) {
      sb += "\n";
      for (const rpc of service.rpcs) sb += indented(this.rpc(rpc));
    }
    return `${sb}}\n`;
  }

  private rpc(rpc: RpcElement): string {
    return at(rpc.position, () => this.rpcText(rpc));
  }

  private rpcText(rpc: RpcElement): string {
    const request = this.normalize ? this.ctx.qualify(rpc.requestType) : rpc.requestType;
    const response = this.normalize ? this.ctx.qualify(rpc.responseType) : rpc.responseType;
    let sb = `rpc ${rpc.name} (${rpc.requestStreaming ? "stream " : ""}${request}) returns (${rpc.responseStreaming ? "stream " : ""}${response})`;
    const options = this.ctx.filterOptions(rpc.options);
    if (options.length > 0) {
      sb += " {\n";
      for (const o of options) sb += indented(this.optionStatement(o));
      sb += "}";
    }
    return `${sb};\n`;
  }

  private reservedList(reserveds: readonly ReservedElement[]): ReservedElement[] {
    if (!this.normalize) return [...reserveds];
    const single = reserveds.flatMap((r) => r.values.map((v) => ({ values: [v] })));
    return sortRanges(single);
  }

  private enumType(type: EnumElement): string {
    let sb = `enum ${type.name} {`;
    if (type.reserveds.length > 0) {
      sb += "\n";
      for (const r of this.reservedList(type.reserveds)) sb += indented(this.reserved(r));
    }
    if (type.reserveds.length === 0 && (type.options.length > 0 || type.constants.length > 0)) sb += "\n";
    for (const o of this.ctx.filterOptions(type.options)) sb += indented(this.optionStatement(o));
    if (type.constants.length > 0) {
      const constants = this.normalize
        ? [...type.constants].sort((a, b) => a.tag - b.tag || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        : type.constants;
      for (const c of constants) sb += indented(this.enumConstant(c));
    }
    return `${sb}}\n`;
  }

  private enumConstant(c: EnumConstantElement): string {
    let sb = `${c.name} = ${c.tag}`;
    const options = this.ctx.filterOptions(c.options);
    if (options.length > 0) sb += ` ${this.appendOptions(options)}`;
    return `${sb};\n`;
  }

  /**
   * The message with every line after `prefix` (its nesting): nested messages print at their own
   * depth instead of each enclosing message re-indenting them, which was quadratic in the depth.
   */
  private message(type: MessageElement, prefix = ""): string {
    let sb = `message ${type.name} {`;
    if (type.reserveds.length > 0) {
      sb += "\n";
      for (const r of this.reservedList(type.reserveds)) sb += indented(this.reserved(r));
    }
    const options = this.ctx.filterOptions(type.options);
    if (options.length > 0) {
      sb += "\n";
      for (const o of options) sb += indented(this.optionStatement(o));
    }
    if (type.fields.length > 0) {
      sb += "\n";
      const fields = this.normalize ? [...type.fields].sort((a, b) => a.tag - b.tag) : type.fields;
      for (const f of fields) sb += indented(this.field(f));
    }
    if (type.oneOfs.length > 0) {
      sb += "\n";
      let oneOfs: OneOfElement[] = [...type.oneOfs];
      if (this.normalize) {
        oneOfs = oneOfs
          .filter((o) => o.fields.length > 0)
          .map((o) => ({ ...o, fields: [...o.fields].sort((a, b) => a.tag - b.tag) }))
          .sort((a, b) => a.fields[0].tag - b.fields[0].tag);
      }
      for (const o of oneOfs) sb += indented(this.oneOf(o));
    }
    if (type.groups.length > 0) {
      sb += "\n";
      for (const g of this.sortedByTag(type.groups)) sb += indented(this.group(g));
    }
    if (type.extensions.length > 0) {
      sb += "\n";
      let extensions: ExtensionsElement[] = [...type.extensions];
      if (this.normalize) {
        const single = extensions.flatMap((e) => e.values.map((v) => ({ values: [v], options: e.options })));
        extensions = single.sort((a, b) => rangeStart(a.values[0]) - rangeStart(b.values[0]));
      }
      for (const e of extensions) sb += indented(this.extensions(e));
    }
    if (type.extendDeclarations.length > 0) {
      sb += "\n";
      for (const e of this.extendElements(type.extendDeclarations)) sb += indented(this.extend(e));
    }
    const types = this.filterTypes(type.nestedTypes);
    if (types.length === 0) return prefixLines(`${sb}}\n`, prefix);
    sb += "\n";
    const inner = `${prefix}  `;
    let nested = "";
    for (const t of types) if (t.kind === "message") nested += this.ctx.inName(t.name, () => this.message(t, inner));
    for (const t of types)
      if (t.kind === "enum") nested += this.ctx.inName(t.name, () => indented(this.enumType(t), inner));
    return `${prefixLines(sb, prefix)}${nested}${prefix}}\n`;
  }

  private sortedByTag<T extends { tag: number }>(list: readonly T[]): readonly T[] {
    return this.normalize ? [...list].sort((a, b) => a.tag - b.tag) : list;
  }

  private rangeText(value: RangeValue, quoteNames: boolean): string {
    if (typeof value === "string") {
      if (!quoteNames) throw new Error("unexpected name in extensions");
      return `"${value}"`;
    }
    if (typeof value === "number") return String(value);
    if (this.normalize && value.start === value.end) return String(value.start);
    return `${value.start} to ${value.end < MAX_TAG_VALUE ? value.end : "max"}`;
  }

  private reserved(r: ReservedElement): string {
    return `reserved ${r.values.map((v) => this.rangeText(v, true)).join(", ")};\n`;
  }

  private extensions(e: ExtensionsElement): string {
    let sb = `extensions ${e.values.map((v) => this.rangeText(v, false)).join(", ")}`;
    const options = this.ctx.filterOptions(e.options);
    if (options.length > 0) sb += ` ${this.appendOptions(options)}`;
    return `${sb};\n`;
  }

  private oneOf(o: OneOfElement): string {
    let sb = `oneof ${o.name} {`;
    const options = this.ctx.filterOptions(o.options);
    if (options.length > 0) {
      sb += "\n";
      for (const opt of options) sb += indented(this.optionStatement(opt));
    }
    if (o.fields.length > 0) {
      sb += "\n";
      for (const f of o.fields) sb += indented(this.field(f));
    }
    if (o.groups.length > 0) {
      sb += "\n";
      for (const g of this.sortedByTag(o.groups)) sb += indented(this.group(g));
    }
    return `${sb}}\n`;
  }

  private group(g: GroupElement): string {
    let sb = `${g.label !== null ? `${g.label} ` : ""}group ${g.name} = ${g.tag} {`;
    if (g.fields.length > 0) {
      sb += "\n";
      for (const f of this.sortedByTag(g.fields)) sb += indented(this.field(f));
    }
    return `${sb}}\n`;
  }

  private extend(e: ExtendElement): string {
    let sb = `extend ${e.name} {`;
    if (e.fields.length > 0) {
      sb += "\n";
      for (const f of this.sortedByTag(e.fields)) sb += indented(this.field(f));
    }
    return `${sb}}\n`;
  }

  private field(field: FieldElement): string {
    return at(field.position, () => this.fieldText(field));
  }

  private fieldText(field: FieldElement): string {
    let label = field.label;
    let fieldType = field.type;
    let type: ProtoType = protoType(fieldType);
    if (this.normalize) {
      if (!type.isScalar && !type.isMap) {
        // A reference to a map-entry message is printed as the map it stands for.
        fieldType = this.ctx.qualify(fieldType);
        const info = this.ctx.typeForFullName(fieldType, true);
        const mapType = info ? mapTypeOf(info) : null;
        type = mapType ?? protoType(fieldType);
      }
      if (type.isMap && type.valueType !== null && type.keyType !== null) {
        const value = this.ctx.resolve(type.valueType.text, true);
        if (value !== null) type = protoType(`map<${type.keyType.text}, .${value}>`);
        label = null;
      }
      fieldType = type.text;
    }
    let sb = `${label !== null ? `${label} ` : ""}${fieldType} ${field.name} = ${field.tag}`;
    const options: OptionElement[] = [...field.options];
    if (field.defaultValue !== null)
      options.push({ name: "default", kind: defaultKind(type), value: field.defaultValue, parenthesized: false });
    if (field.jsonName !== null)
      options.push({ name: "json_name", kind: "STRING", value: field.jsonName, parenthesized: false });
    const filtered = this.ctx.filterOptions(options);
    if (filtered.length > 0) sb += ` ${this.appendOptions(filtered)}`;
    return `${sb};\n`;
  }

  private optionStatement(o: OptionElement): string {
    return `option ${this.option(o)};\n`;
  }

  private option(o: OptionElement): string {
    const name = o.parenthesized ? `(${o.name})` : o.name;
    switch (o.kind) {
      case "STRING":
        return `${name} = "${escapeChars(String(o.value))}"`;
      case "BOOLEAN":
      case "ENUM":
        return `${name} = ${String(o.value)}`;
      case "NUMBER":
        return `${name} = ${this.number(String(o.value))}`;
      case "OPTION":
        return `${name}.${this.option(o.value as OptionElement)}`;
      case "MAP":
        return `${name} = {\n${this.optionMap(o.value as OptionMap)}}`;
      case "LIST":
        return `${name} = ${this.appendOptions(o.value as OptionValue[])}`;
    }
  }

  private optionMap(map: OptionMap): string {
    let entries = [...map];
    if (this.normalize) {
      const byKey = new Map<string, OptionValue>();
      for (const [k, v] of entries) {
        if (Array.isArray(v) && v.length === 0) continue;
        let key = k;
        if (k.startsWith("[") && k.endsWith("]")) {
          const resolved = this.ctx.resolveExtendField(k.slice(1, -1), true);
          if (resolved !== null) key = `[${resolved}]`;
        }
        if (!byKey.has(key)) byKey.set(key, v);
      }
      entries = [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
    const out: string[] = [];
    entries.forEach(([k, v], i) => appendIndented(out, `${k}: ${this.value(v)}${i !== entries.length - 1 ? "," : ""}`));
    return out.join("");
  }

  private value(v: OptionValue): string {
    if (typeof v === "string") return `"${escapeChars(v)}"`;
    if (v instanceof Map) return `{\n${this.optionMap(v)}}`;
    if (Array.isArray(v)) {
      if (this.normalize && v.length === 1) return this.value(v[0]);
      const out: string[] = [];
      v.forEach((item, i) => appendIndented(out, `${this.value(item)}${i !== v.length - 1 ? "," : ""}`));
      return `[\n${out.join("")}]`;
    }
    if (isOptionPrimitive(v)) return v.primitive === "NUMBER" ? this.number(v.value) : v.value;
    if (isOptionElement(v)) return this.option(v);
    return String(v);
  }

  /** `[a = 1]`, or one option per line when there are several. */
  private appendOptions(options: readonly OptionValue[]): string {
    if (options.length === 1) return `[${this.value(options[0])}]`;
    const out: string[] = [];
    options.forEach((o, i) => appendIndented(out, `${this.value(o)}${i < options.length - 1 ? "," : ""}`));
    return `[\n${out.join("")}]`;
  }

  private number(text: string): string {
    return this.normalize ? normalizeNumberText(text) : text;
  }
}

function rangeStart(v: RangeValue): number {
  if (typeof v === "number") return v;
  if (typeof v === "string") return 2147483647;
  return v.start;
}

function sortRanges(list: ReservedElement[]): ReservedElement[] {
  const text = (v: RangeValue): string => (typeof v === "object" ? `${v.start}..${v.end}` : String(v));
  return list.sort((a, b) => {
    const d = rangeStart(a.values[0]) - rangeStart(b.values[0]);
    if (d !== 0) return d;
    const x = text(a.values[0]);
    const y = text(b.values[0]);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** Kind Confluent gives a field's default value when printing it as an option. */
function defaultKind(type: ProtoType): OptionKind {
  const simple = type.text.slice(type.text.lastIndexOf(".") + 1);
  if (simple === "bool") return "BOOLEAN";
  if (simple === "string") return "STRING";
  if (
    [
      "bytes",
      "double",
      "float",
      "fixed32",
      "fixed64",
      "int32",
      "int64",
      "sfixed32",
      "sfixed64",
      "sint32",
      "sint64",
      "uint32",
      "uint64",
    ].includes(simple)
  ) {
    return "NUMBER";
  }
  return "ENUM";
}

/** ProtobufSchema.canonicalString(). */
export function canonicalString(file: ProtoFileElement): string {
  return new Printer(new FormatContext(false)).file(file);
}

/** ProtobufSchemaUtils.toNormalizedString; throws UnresolvedTypeError. */
export function normalizedString(schema: SchemaFiles): string {
  const ctx = new FormatContext(true);
  ctx.collectTypeInfo(schema, true);
  return new Printer(ctx).file(schema.main);
}
