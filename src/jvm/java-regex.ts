// java.util.regex semantics that Connect configs rely on, over JS RegExp: Matcher.matches() (the whole
// input), Matcher.replaceFirst() with Java's replacement syntax ($1, ${name}, \$), and the translation
// of the Java-only constructs that topic patterns actually use.
//
// Translated: leading inline flags (?i) (?s) (?m) (?u) (?d), \A \z \Z, \Q...\E quoting, possessive
// quantifiers (*+ ++ ?+ {n}+, treated as greedy) and \h. Anything else is passed to RegExp as is, so
// Java-only syntax (class intersection [a-z&&[^e]], POSIX \p{Alpha}, (?x) comments) is rejected or
// may differ.
//
// matches() and replaceFirst() run here, for patterns and inputs Sluice itself controls; a task's
// matches of user-supplied regexes use matchesWithin() and replaceFirstWithin(), which run on a regex
// thread under a time budget (regex-budget.ts).
import { regexThreads, type RegexMatch } from "./regex-budget.ts";

export class JavaRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatternSyntaxException";
  }
}

export class JavaPattern {
  private readonly whole: RegExp;
  private readonly first: RegExp;
  readonly groupCount: number;
  readonly groupNames: ReadonlySet<string>;

  private constructor(
    readonly pattern: string,
    private readonly source: string,
    private readonly flags: string,
  ) {
    try {
      this.first = new RegExp(source, flags);
      this.whole = new RegExp(`^(?:${source})$`, flags);
    } catch (e) {
      throw new JavaRegexError(`${(e as Error).message} near index 0\n${pattern}`);
    }
    // An empty alternative always matches, which reveals how many groups the pattern has.
    const probe = new RegExp(`${source}|`, flags).exec("") as RegExpExecArray;
    this.groupCount = probe.length - 1;
    this.groupNames = new Set(Object.keys(probe.groups ?? {}));
  }

  static compile(pattern: string): JavaPattern {
    const { source, flags } = translate(pattern);
    return new JavaPattern(pattern, source, flags);
  }

  /** Matcher.matches(): the entire input. */
  matches(input: string): boolean {
    return this.whole.test(input);
  }

  /** Matcher.replaceFirst(replacement): replaces the first match found scanning from the start. */
  replaceFirst(input: string, replacement: JavaReplacement | string): string {
    const compiled = typeof replacement === "string" ? JavaReplacement.compile(replacement, this) : replacement;
    return replaced(input, asMatch(this.first.exec(input)), compiled);
  }

  /** matches() on a regex thread; rejects with RegexTimeoutError past the budget. `what` names the setting for the message. */
  async matchesWithin(what: string, input: string): Promise<boolean> {
    return (await regexThreads.exec(this.described(what), this.whole.source, this.flags, input)) !== null;
  }

  /** replaceFirst() on a regex thread, as matchesWithin(). */
  async replaceFirstWithin(what: string, input: string, replacement: JavaReplacement): Promise<string> {
    return replaced(input, await regexThreads.exec(this.described(what), this.source, this.flags, input), replacement);
  }

  private described(what: string): string {
    return `${what} '${this.pattern}'`;
  }
}

function asMatch(m: RegExpExecArray | null): RegexMatch | null {
  return m === null ? null : { index: m.index, groups: [...m], named: m.groups };
}

function replaced(input: string, m: RegexMatch | null, replacement: JavaReplacement): string {
  if (m === null) return input;
  return input.slice(0, m.index) + replacement.expand(m) + input.slice(m.index + m.groups[0]!.length);
}

type ReplacementPart = string | number | { name: string };

/** A Java replacement string, checked against a pattern's groups (the checks Matcher.appendReplacement makes). */
export class JavaReplacement {
  private constructor(private readonly parts: readonly ReplacementPart[]) {}

  static compile(replacement: string, pattern: JavaPattern): JavaReplacement {
    const parts: ReplacementPart[] = [];
    let literal = "";
    const flush = () => {
      if (literal !== "") parts.push(literal);
      literal = "";
    };
    for (let i = 0; i < replacement.length; i++) {
      const c = replacement[i];
      if (c === "\\") {
        i++;
        if (i >= replacement.length) throw new JavaRegexError("character to be escaped is missing");
        literal += replacement[i];
      } else if (c === "$") {
        i++;
        if (i >= replacement.length) throw new JavaRegexError("Illegal group reference: group index is missing");
        if (replacement[i] === "{") {
          const end = replacement.indexOf("}", i);
          if (end < 0) throw new JavaRegexError("named capturing group is missing trailing '}'");
          const name = replacement.slice(i + 1, end);
          if (name === "") throw new JavaRegexError("named capturing group has 0 length name");
          if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new JavaRegexError(`named capturing group has illegal name: ${name}`);
          if (!pattern.groupNames.has(name)) throw new JavaRegexError(`No group with name {${name}}`);
          flush();
          parts.push({ name });
          i = end;
        } else {
          if (!isDigit(replacement[i])) throw new JavaRegexError("Illegal group reference");
          let group = Number(replacement[i]);
          if (group > pattern.groupCount) throw new JavaRegexError(`No group ${group}`);
          // Java takes further digits only while the number still names an existing group.
          while (i + 1 < replacement.length && isDigit(replacement[i + 1])) {
            const next = group * 10 + Number(replacement[i + 1]);
            if (next > pattern.groupCount) break;
            group = next;
            i++;
          }
          flush();
          parts.push(group);
        }
      } else literal += c;
    }
    flush();
    return new JavaReplacement(parts);
  }

  expand(match: RegexMatch): string {
    let out = "";
    for (const part of this.parts) {
      if (typeof part === "string") out += part;
      else if (typeof part === "number") out += match.groups[part] ?? "";
      else out += match.named?.[part.name] ?? "";
    }
    return out;
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

const HORIZONTAL_SPACE = "[ \\t\\xA0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]";

function translate(pattern: string): { source: string; flags: string } {
  let flags = "";
  let i = 0;
  // Leading (?imsud) groups become RegExp flags.
  for (let m = /^\(\?([a-zA-Z]+)\)/.exec(pattern); m !== null; m = /^\(\?([a-zA-Z]+)\)/.exec(pattern.slice(i))) {
    for (const f of m[1]) {
      if (f === "i" || f === "m" || f === "s") {
        if (!flags.includes(f)) flags += f;
      } else if (f !== "u" && f !== "d") throw new JavaRegexError(`Unsupported inline flag '${f}' near index ${i}\n${pattern}`);
    }
    i += m[0].length;
  }
  let out = "";
  let inClass = false;
  let unicode = false;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "\\") {
      const n = pattern[i + 1];
      if (n === undefined) throw new JavaRegexError(`Unexpected internal error near index ${i + 1}\n${pattern}`);
      if (n === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        const quoted = pattern.slice(i + 2, end < 0 ? pattern.length : end);
        out += quoted.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
        i = end < 0 ? pattern.length : end + 2;
        continue;
      }
      if (!inClass && n === "A") out += "(?<![\\s\\S])";
      else if (!inClass && n === "z") out += "(?![\\s\\S])";
      else if (!inClass && n === "Z") out += "(?=\\n?(?![\\s\\S]))";
      else if (n === "h") out += inClass ? HORIZONTAL_SPACE.slice(1, -1) : HORIZONTAL_SPACE;
      else {
        if (n === "p" || n === "P") unicode = true;
        out += c + n;
      }
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // A leading ] (or ^]) is literal in Java, as in JS.
      if (pattern[i + 1] === "^") {
        out += "^";
        i++;
      }
      i++;
      continue;
    }
    out += c;
    i++;
    // Possessive quantifiers: drop the '+' that follows a quantifier.
    if ((c === "*" || c === "+" || c === "?" || c === "}") && pattern[i] === "+") {
      const prev = out.length >= 2 ? out[out.length - 2] : "";
      const isQuantifier = c !== "?" || (prev !== "(" && prev !== "");
      if (isQuantifier) i++;
    }
  }
  if (unicode) flags += "u";
  return { source: out, flags };
}
