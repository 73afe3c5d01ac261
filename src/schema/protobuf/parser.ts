// .proto text → element tree, accepting and rejecting what Square Wire 6.4 (Confluent's parser)
// does, with its error texts. Wire's ProtoParser: declarations, messages, enums, services and their
// fields; characters are read by syntax-reader.ts and options by option-reader.ts, as Wire splits them.
// Comments are skipped: the canonical form does not print documentation.
import {
  MAX_TAG_VALUE,
  type EnumConstantElement,
  type EnumElement,
  emptyMessage,
  type ExtendElement,
  type ExtensionsElement,
  type FieldElement,
  type GroupElement,
  type Label,
  type MessageElement,
  type OneOfElement,
  type OptionElement,
  type Position,
  type ProtoFileElement,
  type RangeValue,
  type ReservedElement,
  type RpcElement,
  type ServiceElement,
  type Syntax,
  type TypeElement,
} from "./elements.ts";
import { javaParseInteger } from "../../jvm/java-numbers.ts";
import { readOption, readOptions, stripValue } from "./option-reader.ts";
import { locationText, ProtoSyntaxError, SyntaxReader } from "./syntax-reader.ts";

/**
 * Messages nested deeper than protobufjs accepts (its nestingLimit, protoc's 32): such a schema is
 * refused with protobufjs's "max depth exceeded" anyway, and printing it first costs time (and
 * text) quadratic in the depth — and a deep enough one overflows the stack.
 */
const MAX_MESSAGE_NESTING = 32;

export class NestingTooDeepError extends Error {
  constructor() {
    super("max depth exceeded");
    this.name = "NestingTooDeepError";
  }
}

/** Wire reads a range end with Integer.parseInt, whose failure text it raises unwrapped. */
function rangeEnd(word: string): number {
  if (word === "max") return MAX_TAG_VALUE;
  try {
    return Number(javaParseInteger(word, 32));
  } catch (e) {
    throw new ProtoSyntaxError((e as Error).message, null);
  }
}

type Context = "FILE" | "MESSAGE" | "ENUM" | "RPC" | "EXTEND" | "SERVICE";

type Declaration =
  | { kind: "type"; value: TypeElement }
  | { kind: "service"; value: ServiceElement }
  | { kind: "option"; value: OptionElement }
  | { kind: "extend"; value: ExtendElement }
  | { kind: "reserved"; value: ReservedElement }
  | { kind: "field"; value: FieldElement }
  | { kind: "group"; value: GroupElement }
  | { kind: "oneof"; value: OneOfElement }
  | { kind: "extensions"; value: ExtensionsElement }
  | { kind: "constant"; value: EnumConstantElement }
  | { kind: "rpc"; value: RpcElement }
  | null;

class Parser {
  private readonly reader: SyntaxReader;
  private readonly imports: string[] = [];
  private readonly publicImports: string[] = [];
  private readonly weakImports: string[] = [];
  private readonly types: TypeElement[] = [];
  private readonly services: ServiceElement[] = [];
  private readonly extendsList: ExtendElement[] = [];
  private readonly options: OptionElement[] = [];
  private declarationCount = 0;
  private messageNesting = 0;
  private syntax: Syntax | null = null;
  private packageName: string | null = null;

  constructor(text: string) {
    this.reader = new SyntaxReader(text);
  }

  readProtoFile(): ProtoFileElement {
    const positions = new Map<string, Position>();
    for (;;) {
      this.reader.readDocumentation();
      if (this.reader.exhausted()) {
        return {
          packageName: this.packageName,
          syntax: this.syntax,
          imports: this.imports,
          publicImports: this.publicImports,
          weakImports: this.weakImports,
          types: this.types,
          services: this.services,
          extendDeclarations: this.extendsList,
          options: this.options,
        };
      }
      const declaration = this.readDeclaration("FILE");
      if (declaration === null) continue;
      switch (declaration.kind) {
        case "type":
        case "service": {
          // Wire checks duplicate names of top-level types (and of services) only.
          const key = `${declaration.kind}:${declaration.value.name}`;
          const at = declaration.kind === "type" ? declaration.value.position : null;
          const previous = positions.get(key);
          if (previous !== undefined) {
            throw new ProtoSyntaxError(
              `${declaration.value.name} (${at ? locationText(at) : ""}) is already defined at ${locationText(previous)}`,
              at,
            );
          }
          if (at) positions.set(key, at);
          if (declaration.kind === "type") this.types.push(declaration.value);
          else this.services.push(declaration.value);
          break;
        }
        case "option":
          this.options.push(declaration.value);
          break;
        case "extend":
          this.extendsList.push(declaration.value);
          break;
        default:
          break;
      }
    }
  }

  private readDeclaration(context: Context): Declaration {
    const index = this.declarationCount++;
    const r = this.reader;
    if (r.peekIs(";")) return null;
    const location = r.location();
    const label = r.readWord(context !== "ENUM");
    const inFile = context === "FILE";
    const inMessage = context === "MESSAGE";

    if (label === "package" && inFile) {
      this.packageName = r.readName();
      r.require(";");
      return null;
    }
    if (label === "import" && inFile) {
      const c = r.peekChar();
      if (c === '"' || c === "'") {
        this.imports.push(r.readQuotedString());
      } else {
        const kind = r.readString();
        if (kind === "weak") this.weakImports.push(r.readQuotedString());
        else if (kind === "public") this.publicImports.push(r.readQuotedString());
        else throw r.unexpected("expected quoted string", location);
      }
      r.require(";");
      return null;
    }
    if (label === "syntax" && inFile) {
      r.expect(this.syntax === null, () => "too many syntax definitions", location);
      r.require("=");
      r.expect(index === 0, () => "'syntax' element must be the first declaration in a file", location);
      const text = r.readQuotedString();
      if (text !== "proto2" && text !== "proto3") throw r.unexpected(`unexpected syntax: ${text}`, location);
      this.syntax = text;
      r.require(";");
      return null;
    }
    if (label === "option") {
      const option = readOption(r, "=");
      r.require(";");
      return { kind: "option", value: option };
    }
    if (label === "reserved") return { kind: "reserved", value: this.readReserved(location) };
    if (label === "message" && (inFile || inMessage)) return { kind: "type", value: this.readMessage(location) };
    if (label === "enum" && (inFile || inMessage)) return { kind: "type", value: this.readEnum(location) };
    if (label === "service" && inFile) return { kind: "service", value: this.readService() };
    if (label === "extend" && (inFile || inMessage)) return { kind: "extend", value: this.readExtend(location) };
    if (label === "rpc" && context === "SERVICE") return { kind: "rpc", value: this.readRpc(location) };
    if (label === "oneof" && inMessage) return { kind: "oneof", value: this.readOneOf() };
    if (label === "extensions" && inMessage) return { kind: "extensions", value: this.readExtensions(location) };
    if (inMessage || context === "EXTEND") return this.readFieldOrGroup(location, label);
    if (context === "ENUM") return { kind: "constant", value: this.readEnumConstant(label) };
    if (label === "edition" && inFile) throw r.unexpected("edition is not currently supported");
    throw r.unexpected(`unexpected label: ${label}`, location);
  }

  private readMessage(position: Position): MessageElement {
    if (++this.messageNesting > MAX_MESSAGE_NESTING) throw new NestingTooDeepError();
    const r = this.reader;
    const name = r.readName();
    const message = emptyMessage(name, position);
    r.require("{");
    for (;;) {
      r.readDocumentation();
      if (r.peekIs("}")) break;
      const d = this.readDeclaration("MESSAGE");
      if (d === null) continue;
      switch (d.kind) {
        case "field":
          message.fields.push(d.value);
          break;
        case "oneof":
          message.oneOfs.push(d.value);
          break;
        case "group":
          message.groups.push(d.value);
          break;
        case "type":
          message.nestedTypes.push(d.value);
          break;
        case "extensions":
          message.extensions.push(d.value);
          break;
        case "option":
          message.options.push(d.value);
          break;
        case "extend":
          message.extendDeclarations.push(d.value);
          break;
        case "reserved":
          message.reserveds.push(d.value);
          break;
        default:
          break;
      }
    }
    this.messageNesting--;
    return message;
  }

  private readExtend(position: Position): ExtendElement {
    const r = this.reader;
    const name = r.readName();
    const fields: FieldElement[] = [];
    r.require("{");
    for (;;) {
      r.readDocumentation();
      if (r.peekIs("}")) break;
      const d = this.readDeclaration("EXTEND");
      if (d?.kind === "field") fields.push(d.value);
    }
    return { name, fields, position };
  }

  private readService(): ServiceElement {
    const r = this.reader;
    const name = r.readName();
    const rpcs: RpcElement[] = [];
    const options: OptionElement[] = [];
    r.require("{");
    for (;;) {
      r.readDocumentation();
      if (r.peekIs("}")) break;
      const d = this.readDeclaration("SERVICE");
      if (d?.kind === "rpc") rpcs.push(d.value);
      else if (d?.kind === "option") options.push(d.value);
    }
    return { name, rpcs, options };
  }

  private readEnum(position: Position): EnumElement {
    const r = this.reader;
    const name = r.readName();
    const element: EnumElement = { kind: "enum", name, options: [], constants: [], reserveds: [], position };
    r.require("{");
    for (;;) {
      r.readDocumentation();
      if (r.peekIs("}")) break;
      const d = this.readDeclaration("ENUM");
      if (d?.kind === "constant") element.constants.push(d.value);
      else if (d?.kind === "option") element.options.push(d.value);
      else if (d?.kind === "reserved") element.reserveds.push(d.value);
    }
    return element;
  }

  private readFieldOrGroup(location: Position, word: string): Declaration {
    const r = this.reader;
    let label: Label | null;
    let type: string;
    if (word === "required") {
      r.expect(this.syntax !== "proto3", () => "'required' label forbidden in proto3 field declarations", location);
      label = "required";
      type = r.readDataType();
    } else if (word === "optional" || word === "repeated") {
      label = word;
      type = r.readDataType();
    } else {
      r.expect(
        this.syntax === "proto3" || (word === "map" && r.peekChar() === "<"),
        () => `unexpected label: ${word}`,
        location,
      );
      label = null;
      type = r.readDataType(word);
    }
    r.expect(!type.startsWith("map<") || label === null, () => "'map' type cannot have label", location);
    if (type === "group") return { kind: "group", value: this.readGroup(label) };
    return { kind: "field", value: this.readField(location, label, type) };
  }

  private readField(position: Position, label: Label | null, type: string): FieldElement {
    const r = this.reader;
    const name = r.readName(false);
    r.require("=");
    const tag = r.readInt();
    const options = readOptions(r);
    const defaultValue = stripValue("default", options);
    const jsonName = stripValue("json_name", options);
    r.require(";");
    r.skipTrailingComment();
    return { label, type, name, defaultValue, jsonName, tag, options, position };
  }

  private readOneOf(): OneOfElement {
    const r = this.reader;
    const name = r.readName();
    const oneOf: OneOfElement = { name, fields: [], groups: [], options: [] };
    r.require("{");
    for (;;) {
      r.readDocumentation();
      if (r.peekIs("}")) break;
      const location = r.location();
      const type = r.readDataType();
      if (type === "group") {
        oneOf.groups.push(this.readGroup(null));
      } else if (type === "option") {
        oneOf.options.push(readOption(r, "="));
        r.require(";");
      } else {
        oneOf.fields.push(this.readField(location, null, type));
      }
    }
    return oneOf;
  }

  private readGroup(label: Label | null): GroupElement {
    const r = this.reader;
    const name = r.readWord();
    r.require("=");
    const tag = r.readInt();
    const fields: FieldElement[] = [];
    r.require("{");
    for (;;) {
      r.readDocumentation();
      if (r.peekIs("}")) break;
      const location = r.location();
      const word = r.readWord();
      const d = this.readFieldOrGroup(location, word);
      if (d?.kind !== "field") throw r.unexpected("expected field declaration, was group");
      fields.push(d.value);
    }
    return { label, name, tag, fields };
  }

  private readReserved(location: Position): ReservedElement {
    const r = this.reader;
    const values: RangeValue[] = [];
    for (;;) {
      const c = r.peekChar();
      if (c === '"' || c === "'") {
        values.push(r.readQuotedString());
      } else {
        const start = r.readInt();
        const next = r.peekChar();
        if (next === "," || next === ";") {
          values.push(start);
        } else {
          r.expect(r.readWord() === "to", () => "expected ',', ';', or 'to'", location);
          values.push({ start, end: rangeEnd(r.readWord()) });
        }
      }
      const sep = r.readChar();
      if (sep === ";") break;
      if (sep !== ",") throw r.unexpected("expected ',' or ';'");
    }
    r.expect(values.length > 0, () => "'reserved' must have at least one field name or tag", location);
    r.skipTrailingComment();
    return { values };
  }

  private readExtensions(location: Position): ExtensionsElement {
    const r = this.reader;
    const values: RangeValue[] = [];
    const options: OptionElement[] = [];
    for (;;) {
      const start = r.readInt();
      const next = r.peekChar();
      if (next === "," || next === ";" || next === "[") {
        values.push(start);
      } else {
        r.expect(r.readWord() === "to", () => "expected ',', ';', '[' or 'to'", location);
        values.push({ start, end: rangeEnd(r.readWord()) });
      }
      if (r.peekChar() === "[") {
        options.push(...readOptions(r));
        r.require(";");
        break;
      }
      const sep = r.readChar();
      if (sep === ";") break;
      if (sep !== ",") throw r.unexpected("expected ',' or ';'");
    }
    return { values, options };
  }

  private readEnumConstant(name: string): EnumConstantElement {
    const r = this.reader;
    r.require("=");
    const tag = r.readInt();
    const options = readOptions(r);
    r.require(";");
    r.skipTrailingComment();
    return { name, tag, options };
  }

  private readRpc(position: Position): RpcElement {
    const r = this.reader;
    const name = r.readName();
    const readType = (): [string, boolean] => {
      r.require("(");
      const word = r.readWord();
      const result: [string, boolean] = word === "stream" ? [r.readDataType(), true] : [r.readDataType(word), false];
      r.require(")");
      return result;
    };
    const [requestType, requestStreaming] = readType();
    r.expect(r.readWord() === "returns", () => "expected 'returns'", position);
    const [responseType, responseStreaming] = readType();
    const options: OptionElement[] = [];
    if (r.peekIs("{")) {
      for (;;) {
        r.readDocumentation();
        if (r.peekIs("}")) break;
        const d = this.readDeclaration("RPC");
        if (d?.kind === "option") options.push(d.value);
      }
    } else {
      r.require(";");
    }
    return { name, requestType, responseType, requestStreaming, responseStreaming, options, position };
  }
}

/** Parses .proto source the way Wire's ProtoParser does; throws ProtoSyntaxError. */
export function parseProto(text: string): ProtoFileElement {
  return new Parser(text).readProtoFile();
}
