// A small JSONPath (Jayway flavour) used as a record predicate by the condition Filter.
//
// Supported subset:
//   path       $  then any of  .name  ['name']  ["name"]  ['a','b']  [n] (negative from the end)
//              .*  [*]  ..name (deep scan)  [?(<filter>)]
//   filter     <operand> <op> <operand>   with ==  !=  <  <=  >  >=  =~ (regex, /.../ or /.../i,
//              whole-string match as Jayway's)  in / nin (against [literal, ...])
//              <operand> alone = existence test;  !  &&  ||  and parentheses
//   operand    @.path or @['x'] (relative to the element tested), $.path (from the root),
//              'string' or "string", numbers, true, false, null
// A filter on an array tests each element; a filter on an object tests the object itself (Jayway).
//
// Result: `matched` when the path selects something (for a definite path: a non-null value; for one
// with wildcards or filters: at least one element). `missingOrNull` when a definite part of the path
// (before any wildcard or filter) is absent or null, or a definite path ends at null. Inside filters a
// missing or null field is "undefined" and no comparison with it holds, as Confluent documents.
import { BigDecimal, Struct } from "../api/data/index.ts";
import { JavaPattern } from "../../jvm/java-regex.ts";

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidPathException";
  }
}

type Segment =
  | { kind: "names"; names: string[] }
  | { kind: "index"; index: number }
  | { kind: "wildcard" }
  | { kind: "deep"; name: string }
  | { kind: "filter"; expr: Expr };

type Operand =
  | { kind: "path"; relative: boolean; segments: Segment[] }
  | { kind: "literal"; value: unknown }
  | { kind: "regex"; pattern: JavaPattern }
  | { kind: "list"; values: unknown[] };

type Expr =
  | { kind: "or" | "and"; left: Expr; right: Expr }
  | { kind: "not"; expr: Expr }
  | { kind: "exists"; operand: Operand }
  | { kind: "compare"; op: string; left: Operand; right: Operand };

const UNDEFINED = Symbol("undefined");

/** How `=~` is answered: at once when known, else with a promise of the answer (a regex thread's). */
export type RegexMatcher = (pattern: JavaPattern, input: string) => boolean | Promise<boolean>;

/** Thrown out of evaluate() by a `=~` whose answer is not known yet: await it, then evaluate again (evaluation is pure). */
export class MatchPending {
  constructor(readonly answer: Promise<unknown>) {}
}

// The matcher of the evaluation under way: evaluate() is synchronous, so one at a time.
let activeMatcher: RegexMatcher | undefined;

export interface PathResult {
  readonly matched: boolean;
  readonly missingOrNull: boolean;
}

export class JsonPath {
  private constructor(
    readonly text: string,
    private readonly segments: readonly Segment[],
  ) {}

  /** Throws JsonPathError for text outside the supported subset. */
  static compile(text: string): JsonPath {
    const parser = new Parser(text.trim());
    const segments = parser.rootPath();
    parser.expectEnd();
    return new JsonPath(text, segments);
  }

  /** Throws MatchPending when `matches` has yet to answer a `=~`. */
  evaluate(root: unknown, matches: RegexMatcher): PathResult {
    activeMatcher = matches;
    try {
      return this.evaluateJson(root);
    } finally {
      activeMatcher = undefined;
    }
  }

  private evaluateJson(root: unknown): PathResult {
    const json = toJson(root);
    if (json === null || json === undefined) return { matched: false, missingOrNull: true };
    let nodes: unknown[] = [json];
    let definite = true;
    for (const segment of this.segments) {
      const next: unknown[] = [];
      if (segment.kind !== "names" && segment.kind !== "index") definite = false;
      if (segment.kind === "names" && segment.names.length > 1) definite = false;
      for (const node of nodes) {
        const selected = select(node, segment, json);
        if (selected === UNDEFINED) {
          if (definite) return { matched: false, missingOrNull: true };
          continue;
        }
        next.push(...selected);
      }
      nodes = next;
    }
    if (definite) {
      const value = nodes[0];
      return value === null || value === undefined
        ? { matched: false, missingOrNull: true }
        : { matched: true, missingOrNull: false };
    }
    return { matched: nodes.length > 0, missingOrNull: false };
  }
}

/** Connect values as the JSON a path is read against. */
export function toJson(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Struct) {
    const out: Record<string, unknown> = {};
    for (const f of value.schema.fields)
      Object.defineProperty(out, f.name, { value: toJson(value.get(f)), enumerable: true });
    return out;
  }
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) Object.defineProperty(out, String(k), { value: toJson(v), enumerable: true });
    return out;
  }
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === "bigint") return Number(value);
  if (value instanceof BigDecimal) return Number(value.toString());
  if (value instanceof Date) return value.getTime();
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: toJson(v), enumerable: true });
    return out;
  }
  return value;
}

function isObject(node: unknown): node is Record<string, unknown> {
  return typeof node === "object" && node !== null && !Array.isArray(node);
}

/** The nodes a segment selects from `node`, or UNDEFINED when a named/indexed member is absent or null. */
function select(node: unknown, segment: Segment, root: unknown): unknown[] | typeof UNDEFINED {
  switch (segment.kind) {
    case "names": {
      if (!isObject(node)) return UNDEFINED;
      const out: unknown[] = [];
      for (const name of segment.names) {
        if (Object.hasOwn(node, name) && node[name] !== null) out.push(node[name]);
        else if (segment.names.length === 1) return UNDEFINED;
      }
      return out;
    }
    case "index": {
      if (!Array.isArray(node)) return UNDEFINED;
      const i = segment.index < 0 ? node.length + segment.index : segment.index;
      return i >= 0 && i < node.length && node[i] !== null ? [node[i]] : UNDEFINED;
    }
    case "wildcard":
      return Array.isArray(node) ? node : isObject(node) ? Object.values(node) : [];
    case "deep": {
      const out: unknown[] = [];
      const walk = (n: unknown) => {
        if (isObject(n)) {
          if (Object.hasOwn(n, segment.name)) out.push(n[segment.name]);
          Object.values(n).forEach(walk);
        } else if (Array.isArray(n)) n.forEach(walk);
      };
      walk(node);
      return out;
    }
    case "filter":
      if (Array.isArray(node)) return node.filter((element) => test(segment.expr, element, root));
      return isObject(node) && test(segment.expr, node, root) ? [node] : [];
  }
}

function test(expr: Expr, current: unknown, root: unknown): boolean {
  switch (expr.kind) {
    case "or":
      return test(expr.left, current, root) || test(expr.right, current, root);
    case "and":
      return test(expr.left, current, root) && test(expr.right, current, root);
    case "not":
      return !test(expr.expr, current, root);
    case "exists":
      return resolve(expr.operand, current, root) !== UNDEFINED;
    case "compare":
      return compare(expr.op, resolve(expr.left, current, root), resolve(expr.right, current, root));
  }
}

function resolve(operand: Operand, current: unknown, root: unknown): unknown {
  switch (operand.kind) {
    case "literal":
      return operand.value;
    case "list":
      return operand.values;
    case "regex":
      return operand.pattern;
    case "path": {
      let nodes: unknown[] = [operand.relative ? current : root];
      let definite = true;
      for (const segment of operand.segments) {
        if (segment.kind !== "names" && segment.kind !== "index") definite = false;
        const next: unknown[] = [];
        for (const node of nodes) {
          const selected = select(node, segment, root);
          if (selected !== UNDEFINED) next.push(...selected);
        }
        nodes = next;
      }
      if (definite) return nodes.length === 0 || nodes[0] === null || nodes[0] === undefined ? UNDEFINED : nodes[0];
      return nodes;
    }
  }
}

function regexMatches(pattern: JavaPattern, input: string): boolean {
  const answer = activeMatcher!(pattern, input);
  if (answer instanceof Promise) throw new MatchPending(answer);
  return answer;
}

function compare(op: string, left: unknown, right: unknown): boolean {
  if (left === UNDEFINED || right === UNDEFINED || left === null) return false;
  switch (op) {
    case "=~":
      return typeof left === "string" && right instanceof JavaPattern && regexMatches(right, left);
    case "in":
      return Array.isArray(right) && right.some((r) => equal(left, r));
    case "nin":
      return Array.isArray(right) && !right.some((r) => equal(left, r));
    case "==":
      return equal(left, right);
    case "!=":
      return right !== null && !equal(left, right);
  }
  if (typeof left === "number" && typeof right === "number") {
    if (op === "<") return left < right;
    if (op === "<=") return left <= right;
    if (op === ">") return left > right;
    return left >= right;
  }
  if (typeof left === "string" && typeof right === "string") {
    if (op === "<") return left < right;
    if (op === "<=") return left <= right;
    if (op === ">") return left > right;
    return left >= right;
  }
  return false;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return false;
  if (typeof a !== typeof b) return false;
  if (typeof a === "object") return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  private fail(what: string): never {
    throw new JsonPathError(`${what} at position ${this.pos} in path: ${this.text}`);
  }

  private peek(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  private eat(s: string): boolean {
    if (!this.peek(s)) return false;
    this.pos += s.length;
    return true;
  }

  private space(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  expectEnd(): void {
    this.space();
    if (this.pos < this.text.length) this.fail("Unexpected character");
  }

  rootPath(): Segment[] {
    if (!this.eat("$")) this.fail("Path must start with '$'");
    return this.segments();
  }

  private segments(): Segment[] {
    const out: Segment[] = [];
    for (;;) {
      if (this.eat("..")) {
        out.push({ kind: "deep", name: this.name() });
      } else if (this.eat(".")) {
        if (this.eat("*")) out.push({ kind: "wildcard" });
        else out.push({ kind: "names", names: [this.name()] });
      } else if (this.peek("[")) {
        out.push(this.bracket());
      } else return out;
    }
  }

  private name(): string {
    const m = /^[^.[\]\s()=!<>&|,'"~]+/.exec(this.text.slice(this.pos));
    if (m === null) this.fail("Expected a property name");
    this.pos += m[0].length;
    return m[0];
  }

  private bracket(): Segment {
    this.eat("[");
    this.space();
    let segment: Segment;
    if (this.eat("?")) {
      this.space();
      if (!this.eat("(")) this.fail("Expected '(' after '?'");
      const expr = this.or();
      this.space();
      if (!this.eat(")")) this.fail("Expected ')' to close the filter");
      segment = { kind: "filter", expr };
    } else if (this.eat("*")) {
      segment = { kind: "wildcard" };
    } else if (this.peek("'") || this.peek('"')) {
      const names = [this.quoted()];
      this.space();
      while (this.eat(",")) {
        this.space();
        names.push(this.quoted());
        this.space();
      }
      segment = { kind: "names", names };
    } else {
      const m = /^-?\d+/.exec(this.text.slice(this.pos));
      if (m === null) this.fail("Unsupported bracket expression");
      this.pos += m[0].length;
      segment = { kind: "index", index: Number(m[0]) };
    }
    this.space();
    if (!this.eat("]")) this.fail("Expected ']'");
    return segment;
  }

  private quoted(): string {
    const quote = this.text[this.pos++];
    let out = "";
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      if (this.text[this.pos] === "\\") this.pos++;
      out += this.text[this.pos++] ?? "";
    }
    if (!this.eat(quote)) this.fail("Unterminated string");
    return out;
  }

  private or(): Expr {
    let left = this.and();
    for (;;) {
      this.space();
      if (!this.eat("||")) return left;
      left = { kind: "or", left, right: this.and() };
    }
  }

  private and(): Expr {
    let left = this.unary();
    for (;;) {
      this.space();
      if (!this.eat("&&")) return left;
      left = { kind: "and", left, right: this.unary() };
    }
  }

  private unary(): Expr {
    this.space();
    if (this.peek("!") && !this.peek("!=")) {
      this.pos++;
      return { kind: "not", expr: this.unary() };
    }
    if (this.eat("(")) {
      const expr = this.or();
      this.space();
      if (!this.eat(")")) this.fail("Expected ')'");
      return expr;
    }
    const left = this.operand();
    this.space();
    const rest = this.text.slice(this.pos);
    const op =
      ["==", "!=", "<=", ">=", "=~", "<", ">"].find((o) => rest.startsWith(o)) ?? /^(nin|in)(?=[\s[])/.exec(rest)?.[1];
    if (op === undefined) {
      if (left.kind !== "path") this.fail("A literal alone is not a condition");
      return { kind: "exists", operand: left };
    }
    this.pos += op.length;
    this.space();
    const right = op === "=~" ? this.regex() : this.operand();
    return { kind: "compare", op, left, right };
  }

  private operand(): Operand {
    this.space();
    const c = this.text[this.pos];
    if (c === "@" || c === "$") {
      this.pos++;
      return { kind: "path", relative: c === "@", segments: this.segments() };
    }
    if (c === "'" || c === '"') return { kind: "literal", value: this.quoted() };
    if (c === "[") {
      this.pos++;
      const values: unknown[] = [];
      this.space();
      if (!this.eat("]")) {
        for (;;) {
          const v = this.operand();
          if (v.kind !== "literal") this.fail("Only literals are allowed in a list");
          values.push(v.value);
          this.space();
          if (this.eat("]")) break;
          if (!this.eat(",")) this.fail("Expected ',' or ']'");
        }
      }
      return { kind: "list", values };
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.pos));
    if (m === null) this.fail("Expected an operand");
    this.pos += m[0].length;
    const value = m[0] === "true" ? true : m[0] === "false" ? false : m[0] === "null" ? null : Number(m[0]);
    return { kind: "literal", value };
  }

  private regex(): Operand {
    if (!this.eat("/")) this.fail("Expected a /regex/ after =~");
    let source = "";
    while (this.pos < this.text.length && this.text[this.pos] !== "/") {
      if (this.text[this.pos] === "\\" && this.text[this.pos + 1] === "/") {
        source += "/";
        this.pos += 2;
        continue;
      }
      source += this.text[this.pos++];
    }
    if (!this.eat("/")) this.fail("Unterminated regex");
    const flags = /^[imsx]*/.exec(this.text.slice(this.pos))?.[0] ?? "";
    this.pos += flags.length;
    const inline = flags.replace("x", "");
    try {
      return { kind: "regex", pattern: JavaPattern.compile(inline === "" ? source : `(?${inline})${source}`) };
    } catch (e) {
      return this.fail(`Invalid regex (${(e as Error).message})`);
    }
  }
}
