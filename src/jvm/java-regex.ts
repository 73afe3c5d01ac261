// java.util.regex's Matcher over the translated RegExp (java-regex-translation.ts): matches() (the
// whole input) and replaceFirst() with Java's replacement syntax ($1, ${name}, \$).
//
// matches() and replaceFirst() run here, for patterns and inputs Sluice itself controls; a task's
// matches of user-supplied regexes use matchesWithin() and replaceFirstWithin(), which run on a regex
// thread under a time budget (regex-budget.ts).
import { regexThreads, type RegexMatch } from "./regex-budget.ts";
import { JavaRegexError, javaRegExp } from "./java-regex-translation.ts";

// Thrown by compile() and by JavaReplacement; exported here too for the matcher's users.
export { JavaRegexError };

export class JavaPattern {
  private readonly whole: RegExp;
  private readonly first: RegExp;
  private readonly source: string;
  private readonly flags: string;
  readonly groupCount: number;
  readonly groupNames: ReadonlySet<string>;

  private constructor(readonly pattern: string) {
    this.first = javaRegExp(pattern);
    this.source = this.first.source;
    this.flags = this.first.flags;
    this.whole = new RegExp(`^(?:${this.source})$`, this.flags);
    // An empty alternative always matches, which reveals how many groups the pattern has.
    const probe = new RegExp(`${this.source}|`, this.flags).exec("") as RegExpExecArray;
    this.groupCount = probe.length - 1;
    this.groupNames = new Set(Object.keys(probe.groups ?? {}));
  }

  static compile(pattern: string): JavaPattern {
    return new JavaPattern(pattern);
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
          if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name))
            throw new JavaRegexError(`named capturing group has illegal name: ${name}`);
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
