// Wire's OptionReader: option lists (`[a = 1, (b).c = "x"]`), single options and their values
// (scalars, message literals `{ ... }`, lists), read through the syntax reader.
import type { OptionElement, OptionKind, OptionMap, OptionValue } from "./elements.ts";
import type { SyntaxReader } from "./syntax-reader.ts";

/** Removes every option named `name` (Wire treats default and json_name as field attributes). */
export function stripValue(name: string, options: OptionElement[]): string | null {
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
export function readOptions(r: SyntaxReader): OptionElement[] {
  if (!r.peekIs("[")) return [];
  const result: OptionElement[] = [];
  for (;;) {
    result.push(readOption(r, "="));
    if (r.peekIs("]")) break;
    r.expect(r.peekIs(","), () => "Expected ',' or ']");
  }
  return result;
}

export function readOption(r: SyntaxReader, separator: "=" | ":"): OptionElement {
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

function readKindAndValue(r: SyntaxReader): { kind: OptionKind; value: OptionElement["value"] } {
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
function readMap(r: SyntaxReader): OptionMap {
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

function readList(r: SyntaxReader): OptionValue[] {
  r.require("[");
  const result: OptionValue[] = [];
  for (;;) {
    if (r.peekIs("]")) return result;
    const { kind, value } = readKindAndValue(r);
    result.push(
      kind === "BOOLEAN" || kind === "ENUM" || kind === "NUMBER"
        ? { primitive: kind, value: value as string }
        : (value as OptionValue),
    );
    if (r.peekIs(",")) continue;
    r.expect(r.peekChar() === "]", () => "expected ',' or ']'");
  }
}
