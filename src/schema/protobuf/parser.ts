// .proto text → element tree, accepting and rejecting what Square Wire 6.4 (Confluent's parser)
// does, with its error texts ("Syntax error in :line:column: reason"). Comments are skipped: the
// canonical form does not print documentation.
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
  type OptionKind,
  type OptionMap,
  type OptionValue,
  type Position,
  type ProtoFileElement,
  type RangeValue,
  type ReservedElement,
  type RpcElement,
  type ServiceElement,
  type Syntax,
  type TypeElement,
} from "./elements.ts";

/** A parse failure; `message` is Wire's text, `position` where it happened (when known). */
export class ProtoSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: Position | null,
  ) {
    super(message);
    this.name = "ProtoSyntaxError";
  }
}

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

const locationText = (p: Position): string => `:${p.line}:${p.column}`;

/** Wire's SyntaxReader: a cursor over the text that skips whitespace and comments. */
class Reader {
  private pos = 0;
  private line = 0;
  private lineStart = 0;

  constructor(private readonly data: string) {}

  exhausted(): boolean {
    return this.pos === this.data.length;
  }

  location(): Position {
    return { line: this.line + 1, column: this.pos - this.lineStart + 1 };
  }

  unexpected(message: string, at: Position = this.location()): ProtoSyntaxError {
    return new ProtoSyntaxError(`Syntax error in ${locationText(at)}: ${message}`, at);
  }

  expect(condition: boolean, message: () => string, at?: Position): void {
    if (!condition) throw this.unexpected(message(), at ?? this.location());
  }

  readChar(): string {
    const c = this.peekChar();
    this.pos++;
    return c;
  }

  require(c: string): void {
    const read = this.readChar();
    this.expect(read === c, () => `expected '${c}' but was '${read}'`);
  }

  peekChar(): string {
    this.skipWhitespace(true);
    this.expect(this.pos < this.data.length, () => "unexpected end of file");
    return this.data[this.pos];
  }

  /** Consumes `c` when it is next. */
  peekIs(c: string): boolean {
    if (this.peekChar() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  pushBack(c: string): void {
    if (this.data[this.pos - 1] !== c) throw new Error("pushBack mismatch");
    this.pos--;
  }

  readString(): string {
    this.skipWhitespace(true);
    const c = this.peekChar();
    return c === '"' || c === "'" ? this.readQuotedString() : this.readWord();
  }

  readQuotedString(): string {
    let startQuote = this.readChar();
    this.expect(startQuote === '"' || startQuote === "'", () => "expected quoted string");
    let result = "";
    while (this.pos < this.data.length) {
      let c = this.data[this.pos++];
      if (c === startQuote) {
        // Adjacent strings are concatenated.
        const next = this.peekChar();
        if (next === '"' || next === "'") {
          startQuote = this.readChar();
          continue;
        }
        return result;
      }
      if (c === "\\") {
        this.expect(this.pos < this.data.length, () => "unexpected end of file");
        c = this.data[this.pos++];
        switch (c) {
          case "a":
            c = "\u0007";
            break;
          case "b":
            c = "\b";
            break;
          case "f":
            c = "\f";
            break;
          case "n":
            c = "\n";
            break;
          case "r":
            c = "\r";
            break;
          case "t":
            c = "\t";
            break;
          case "v":
            c = "\u000b";
            break;
          case "x":
          case "X":
            c = this.readNumericEscape(16, 2);
            break;
          default:
            if (c >= "0" && c <= "7") {
              this.pos--;
              c = this.readNumericEscape(8, 3);
            }
        }
      }
      result += c;
      if (c === "\n") this.newline();
    }
    throw this.unexpected("unterminated string");
  }

  private readNumericEscape(radix: number, len: number): string {
    let value = -1;
    const end = Math.min(this.pos + len, this.data.length);
    while (this.pos < end) {
      const digit = parseInt(this.data[this.pos], 16);
      if (Number.isNaN(digit) || digit >= radix) break;
      value = value < 0 ? digit : value * radix + digit;
      this.pos++;
    }
    this.expect(value >= 0, () => "expected a digit after \\x or \\X");
    return String.fromCharCode(value);
  }

  /** A (paren-wrapped), [square-wrapped] or naked name. */
  readName(allowLeadingDigit = true, retainWrap = false): string {
    const c = this.peekChar();
    if (c === "(" || c === "[") {
      const close = c === "(" ? ")" : "]";
      this.pos++;
      const word = this.readWord(allowLeadingDigit);
      this.expect(this.readChar() === close, () => `expected '${close}'`);
      return retainWrap ? `${c}${word}${close}` : word;
    }
    return this.readWord(allowLeadingDigit);
  }

  /** A scalar, map or type name, optionally with its first word already read. */
  readDataType(first?: string): string {
    const name = first ?? this.readWord();
    if (name === "map") {
      this.expect(this.readChar() === "<", () => "expected '<'");
      const keyType = this.readDataType();
      this.expect(this.readChar() === ",", () => "expected ','");
      const valueType = this.readDataType();
      this.expect(this.readChar() === ">", () => "expected '>'");
      return `map<${keyType}, ${valueType}>`;
    }
    let out = name;
    while (this.peekChar() === ".") {
      this.pos++;
      out += `.${this.readWord()}`;
    }
    return out;
  }

  readWord(allowLeadingDigit = true): string {
    this.skipWhitespace(true);
    const start = this.pos;
    while (this.pos < this.data.length && /[A-Za-z0-9_\-.]/.test(this.data[this.pos])) this.pos++;
    this.expect(start < this.pos, () => "expected a word");
    if (!allowLeadingDigit) {
      this.expect(
        !/[0-9]/.test(this.data[start]),
        () => "field and constant names cannot start with a digit",
        { line: this.line + 1, column: start - this.lineStart },
      );
    }
    return this.data.slice(start, this.pos);
  }

  readInt(): number {
    const word = this.readWord();
    const value = kotlinToInt(word);
    if (value === null) throw this.unexpected(`expected an integer but was ${word}`);
    return value;
  }

  /** Skips whitespace and comments before a declaration (Wire keeps them as documentation). */
  readDocumentation(): void {
    for (;;) {
      this.skipWhitespace(false);
      if (this.pos === this.data.length || this.data[this.pos] !== "/") return;
      this.readComment();
    }
  }

  private readComment(): void {
    this.pos++;
    const kind = this.pos < this.data.length ? this.data[this.pos++] : "";
    if (kind === "*") {
      while (this.pos + 1 < this.data.length) {
        const c = this.data[this.pos];
        if (c === "*" && this.data[this.pos + 1] === "/") {
          this.pos += 2;
          return;
        }
        if (c === "\n") {
          this.pos++;
          this.newline();
          continue;
        }
        this.pos++;
      }
      throw this.unexpected("unterminated comment");
    }
    if (kind === "/") {
      while (this.pos < this.data.length) {
        if (this.data[this.pos++] === "\n") {
          this.newline();
          break;
        }
      }
      return;
    }
    throw this.unexpected("unexpected '/'");
  }

  /** A comment on the rest of the line after a field, constant or reserved declaration. */
  skipTrailingComment(): void {
    while (this.pos < this.data.length) {
      const c = this.data[this.pos];
      if (c === " " || c === "\t") {
        this.pos++;
      } else if (c === "/") {
        this.pos++;
        break;
      } else {
        return;
      }
    }
    if (!(this.pos < this.data.length && (this.data[this.pos] === "/" || this.data[this.pos] === "*"))) {
      this.pos--;
      throw this.unexpected("expected '//' or '/*'");
    }
    const isStar = this.data[this.pos] === "*";
    this.pos++;
    if (isStar) {
      for (;;) {
        this.expect(this.pos < this.data.length, () => "trailing comment must be closed");
        if (this.data[this.pos] === "*" && this.pos + 1 < this.data.length && this.data[this.pos + 1] === "/") {
          this.pos += 2;
          break;
        }
        this.pos++;
      }
      while (this.pos < this.data.length) {
        const c = this.data[this.pos++];
        if (c === "\n") {
          this.newline();
          break;
        }
        this.expect(c === " " || c === "\t", () => "no syntax may follow trailing comment");
      }
    } else {
      while (this.pos < this.data.length) {
        if (this.data[this.pos++] === "\n") {
          this.newline();
          break;
        }
      }
    }
  }

  private skipWhitespace(skipComments: boolean): void {
    while (this.pos < this.data.length) {
      const c = this.data[this.pos];
      if (c === " " || c === "\t" || c === "\r" || c === "\n") {
        this.pos++;
        if (c === "\n") this.newline();
      } else if (skipComments && c === "/") {
        this.readComment();
      } else {
        return;
      }
    }
  }

  private newline(): void {
    this.line++;
    this.lineStart = this.pos;
  }
}

/** Kotlin's String.toInt(radix) after Wire strips a 0x prefix; null when it would throw. */
function kotlinToInt(word: string): number | null {
  let text = word;
  let radix = 10;
  if (text.startsWith("0x") || text.startsWith("0X")) {
    text = text.slice(2);
    radix = 16;
  }
  const pattern = radix === 16 ? /^[+-]?[0-9A-Fa-f]+$/ : /^[+-]?[0-9]+$/;
  if (!pattern.test(text)) return null;
  const value = parseInt(text, radix);
  return value >= -2147483648 && value <= 2147483647 ? value : null;
}

/** Java's Integer.parseInt failure text, raised (unwrapped) by Wire for a bad range end. */
function rangeEnd(word: string): number {
  if (word === "max") return MAX_TAG_VALUE;
  const v = /^[+-]?[0-9]+$/.test(word) ? parseInt(word, 10) : NaN;
  if (Number.isNaN(v) || v < -2147483648 || v > 2147483647) throw new ProtoSyntaxError(`For input string: "${word}"`, null);
  return v;
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
  private readonly reader: Reader;
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
    this.reader = new Reader(text);
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
      r.expect(this.syntax === "proto3" || (word === "map" && r.peekChar() === "<"), () => `unexpected label: ${word}`, location);
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

/** Removes every option named `name` (Wire treats default and json_name as field attributes). */
function stripValue(name: string, options: OptionElement[]): string | null {
  let result: string | null = null;
  for (let i = 0; i < options.length; ) {
    if (options[i].name === name) {
      result = optionValueText(options[i]);
      options.splice(i, 1);
    } else {
      i++;
    }
  }
  return result;
}

function optionValueText(o: OptionElement): string {
  return typeof o.value === "string" ? o.value : String(o.value);
}

/** Wire's OptionReader.readOptions: `[a = 1, (b).c = "x"]` or nothing. */
function readOptions(r: Reader): OptionElement[] {
  if (!r.peekIs("[")) return [];
  const result: OptionElement[] = [];
  for (;;) {
    result.push(readOption(r, "="));
    if (r.peekIs("]")) break;
    r.expect(r.peekIs(","), () => "Expected ',' or ']");
  }
  return result;
}

function readOption(r: Reader, separator: "=" | ":"): OptionElement {
  const first = r.peekChar();
  const isExtension = first === "[";
  const parenthesized = first === "(";
  let name = r.readName();
  if (isExtension) name = `[${name}]`;
  const subNames: string[] = [];
  let c: string;
  for (;;) {
    c = r.readChar();
    if (c !== ".") break;
    const sub = r.readName(true, true);
    if (sub.startsWith("(")) subNames.push(sub);
    else subNames.push(...sub.split("."));
  }
  if (separator === ":" && c === "{") r.pushBack("{");
  else r.expect(c === separator, () => `expected '${separator}' in option`);
  let { kind, value } = readKindAndValue(r);
  for (const sub of [...subNames].reverse()) {
    const nestedParenthesized = sub.startsWith("(");
    const nestedName = nestedParenthesized ? sub.slice(1, -1) : sub;
    value = { name: nestedName, kind, value, parenthesized: nestedParenthesized };
    kind = "OPTION";
  }
  return { name, kind, value: value as OptionElement["value"], parenthesized };
}

function readKindAndValue(r: Reader): { kind: OptionKind; value: OptionElement["value"] } {
  const c = r.peekChar();
  if (c === "{") return { kind: "MAP", value: readMap(r) };
  if (c === "[") return { kind: "LIST", value: readList(r) };
  if (c === '"' || c === "'") return { kind: "STRING", value: r.readString() };
  if (/[0-9]/.test(c) || c === "-") return { kind: "NUMBER", value: r.readWord() };
  const word = r.readWord();
  if (word === "true" || word === "false") return { kind: "BOOLEAN", value: word };
  return { kind: "ENUM", value: word };
}

/** Aggregate value `{ key: value, ... }`; a repeated key collects its values in a list. */
function readMap(r: Reader): OptionMap {
  r.readChar();
  const result: OptionMap = new Map();
  for (;;) {
    if (r.peekIs("}")) return result;
    const option = readOption(r, ":");
    const value: OptionValue =
      option.kind === "BOOLEAN" || option.kind === "ENUM" || option.kind === "NUMBER"
        ? { primitive: option.kind, value: option.value as string }
        : (option.value as OptionValue);
    if (option.kind === "OPTION") {
      const nested = option.value as OptionElement;
      let target = result.get(option.name);
      if (!(target instanceof Map)) {
        target = new Map();
        result.set(option.name, target);
      }
      target.set(nested.name, nested.value as OptionValue);
    } else {
      const previous = result.get(option.name);
      if (previous === undefined) result.set(option.name, value);
      else if (Array.isArray(previous)) previous.push(...(Array.isArray(value) ? value : [value]));
      else result.set(option.name, [previous, ...(Array.isArray(value) ? value : [value])]);
    }
    if (!r.peekIs(",")) r.peekIs(";");
  }
}

function readList(r: Reader): OptionValue[] {
  r.require("[");
  const result: OptionValue[] = [];
  for (;;) {
    if (r.peekIs("]")) return result;
    const { kind, value } = readKindAndValue(r);
    result.push(
      kind === "BOOLEAN" || kind === "ENUM" || kind === "NUMBER" ? { primitive: kind, value: value as string } : (value as OptionValue),
    );
    if (r.peekIs(",")) continue;
    r.expect(r.peekChar() === "]", () => "expected ',' or ']'");
  }
}

/** Parses .proto source the way Wire's ProtoParser does; throws ProtoSyntaxError. */
export function parseProto(text: string): ProtoFileElement {
  return new Parser(text).readProtoFile();
}
