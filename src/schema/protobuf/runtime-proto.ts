// The element tree re-printed as plain .proto for protobufjs's parser, keeping only what encoding
// and decoding need. protobufjs rejects syntax Confluent accepts (aggregate option values in field
// options, list literals, reserved numbers also used by a field, ...), so custom options, reserved
// ranges and services are left out. Map-entry messages of descriptor-based schemas become map<>
// fields again, so their values read as plain objects.
import { escapeChars } from "./canonical.ts";
import type {
  EnumElement,
  FieldElement,
  GroupElement,
  MessageElement,
  OneOfElement,
  ProtoFileElement,
  RangeValue,
} from "./elements.ts";
import { findOptionValue } from "./type-context.ts";

function optionsText(field: FieldElement): string {
  const parts: string[] = [];
  const packed = findOptionValue(field.options, "packed");
  if (packed === "true" || packed === "false") parts.push(`packed = ${packed}`);
  if (field.defaultValue !== null) {
    const quoted = field.type === "string" || field.type === "bytes";
    parts.push(`default = ${quoted ? `"${escapeChars(field.defaultValue)}"` : field.defaultValue}`);
  }
  return parts.length > 0 ? ` [${parts.join(", ")}]` : "";
}

function rangeText(v: RangeValue): string {
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return `"${v}"`;
  return `${v.start} to ${v.end}`;
}

class RuntimePrinter {
  private out: string[] = [];

  private line(depth: number, text: string): void {
    this.out.push(`${"  ".repeat(depth)}${text}`);
  }

  file(file: ProtoFileElement): string {
    if (file.syntax !== null) this.line(0, `syntax = "${file.syntax}";`);
    if (file.packageName !== null) this.line(0, `package ${file.packageName};`);
    for (const t of file.types) {
      if (t.kind === "message") this.message(t, 0);
      else this.enumType(t, 0);
    }
    for (const e of file.extendDeclarations) this.extend(e.name, e.fields, 0);
    return `${this.out.join("\n")}\n`;
  }

  private field(f: FieldElement, depth: number, mapEntries: ReadonlyMap<string, MessageElement>): void {
    const entry = f.label === "repeated" ? mapEntries.get(f.type.slice(f.type.lastIndexOf(".") + 1)) : undefined;
    const key = entry?.fields.find((x) => x.name === "key");
    const value = entry?.fields.find((x) => x.name === "value");
    if (key && value) {
      this.line(depth, `map<${key.type}, ${value.type}> ${f.name} = ${f.tag};`);
      return;
    }
    this.line(depth, `${f.label !== null ? `${f.label} ` : ""}${f.type} ${f.name} = ${f.tag}${optionsText(f)};`);
  }

  private group(g: GroupElement, depth: number): void {
    this.line(depth, `${g.label !== null ? `${g.label} ` : ""}group ${g.name} = ${g.tag} {`);
    for (const f of g.fields) this.field(f, depth + 1, new Map());
    this.line(depth, "}");
  }

  private oneOf(o: OneOfElement, depth: number, mapEntries: ReadonlyMap<string, MessageElement>): void {
    this.line(depth, `oneof ${o.name} {`);
    for (const f of o.fields) this.field(f, depth + 1, mapEntries);
    this.line(depth, "}");
  }

  private message(m: MessageElement, depth: number): void {
    const mapEntries = new Map<string, MessageElement>();
    for (const t of m.nestedTypes) {
      if (t.kind === "message" && findOptionValue(t.options, "map_entry") === "true") mapEntries.set(t.name, t);
    }
    this.line(depth, `message ${m.name} {`);
    for (const f of m.fields) this.field(f, depth + 1, mapEntries);
    for (const o of m.oneOfs) this.oneOf(o, depth + 1, mapEntries);
    for (const g of m.groups) this.group(g, depth + 1);
    for (const e of m.extensions) this.line(depth + 1, `extensions ${e.values.map(rangeText).join(", ")};`);
    for (const e of m.extendDeclarations) this.extend(e.name, e.fields, depth + 1);
    for (const t of m.nestedTypes) {
      if (t.kind === "enum") this.enumType(t, depth + 1);
      else if (!mapEntries.has(t.name)) this.message(t, depth + 1);
    }
    this.line(depth, "}");
  }

  private enumType(e: EnumElement, depth: number): void {
    this.line(depth, `enum ${e.name} {`);
    if (findOptionValue(e.options, "allow_alias") === "true") this.line(depth + 1, "option allow_alias = true;");
    for (const c of e.constants) this.line(depth + 1, `${c.name} = ${c.tag};`);
    this.line(depth, "}");
  }

  private extend(name: string, fields: readonly FieldElement[], depth: number): void {
    this.line(depth, `extend ${name} {`);
    for (const f of fields) this.field(f, depth + 1, new Map());
    this.line(depth, "}");
  }
}

export function runtimeProtoText(file: ProtoFileElement): string {
  return new RuntimePrinter().file(file);
}
