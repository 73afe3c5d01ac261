// Wire's SyntaxReader: the character-level reader of .proto text (whitespace, comments, names,
// strings, integers), with Wire's error texts ("Syntax error in :line:column: reason").
import type { Position } from "./elements.ts";

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

export const locationText = (p: Position): string => `:${p.line}:${p.column}`;

/** Wire's SyntaxReader: a cursor over the text that skips whitespace and comments. */
export class SyntaxReader {
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
      this.expect(!/[0-9]/.test(this.data[start]), () => "field and constant names cannot start with a digit", {
        line: this.line + 1,
        column: start - this.lineStart,
      });
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
