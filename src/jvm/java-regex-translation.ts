// Java regular expressions (java.util.regex syntax) as JavaScript RegExps, for Connect configs and
// JSON Schema patterns. No threads here: the serde package (for Node) uses it too.
//
// Translated: leading inline flags (?i) (?s) (?m) (?u) (?d) (?x), \A \z \Z, \Q...\E quoting,
// possessive quantifiers (*+ ++ ?+ {n}+, treated as greedy), \h, \pL as \p{L}, and (?x)'s white
// space and # comments. Java matches code points, so the RegExp is a Unicode one ("u") whenever
// JavaScript accepts the translation as one, and must be one when the pattern uses \p{…}. Anything
// else is passed to RegExp as is, so Java-only syntax (class intersection [a-z&&[^e]], \p{IsLatin},
// \p{javaLowerCase}) is rejected, and some (POSIX \p{Alpha}, which JavaScript reads as Alphabetic) differs.

export class JavaRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatternSyntaxException";
  }
}

/**
 * A RegExp that finds what Java's `Pattern.compile(pattern).matcher(s).find()` finds (test/exec
 * scan from the start); throws JavaRegexError where the translation is not a valid RegExp.
 */
export function javaRegExp(pattern: string): RegExp {
  const { source, flags, unicode } = translate(pattern);
  // Unicode mode is stricter (no identity escapes like \-); without \p{…} the plain mode is the fallback, and its error the one reported.
  let error: unknown;
  for (const mode of unicode ? ["u"] : ["u", ""]) {
    try {
      return new RegExp(source, flags + mode);
    } catch (e) {
      error = e;
    }
  }
  throw new JavaRegexError(`${(error as Error).message} near index 0\n${pattern}`);
}

const HORIZONTAL_SPACE = "[ \\t\\xA0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]";

interface Translation {
  source: string;
  flags: string;
  /** The pattern uses \p{…}/\P{…}, which only a Unicode RegExp reads as classes. */
  unicode: boolean;
}

function translate(pattern: string): Translation {
  let flags = "";
  let comments = false;
  let i = 0;
  // Leading (?imsudx) groups become RegExp flags.
  for (let m = /^\(\?([a-zA-Z]+)\)/.exec(pattern); m !== null; m = /^\(\?([a-zA-Z]+)\)/.exec(pattern.slice(i))) {
    for (const f of m[1]) {
      if (f === "i" || f === "m" || f === "s") {
        if (!flags.includes(f)) flags += f;
      } else if (f === "x") comments = true;
      else if (f !== "u" && f !== "d")
        throw new JavaRegexError(`Unsupported inline flag '${f}' near index ${i}\n${pattern}`);
    }
    i += m[0].length;
  }
  const body = comments ? pattern.slice(0, i) + withoutComments(pattern.slice(i)) : pattern;
  let out = "";
  let inClass = false;
  let unicode = false;
  while (i < body.length) {
    const c = body[i];
    if (c === "\\") {
      const n = body[i + 1];
      if (n === undefined) throw new JavaRegexError(`Unexpected internal error near index ${i + 1}\n${pattern}`);
      if (n === "Q") {
        const end = body.indexOf("\\E", i + 2);
        const quoted = body.slice(i + 2, end < 0 ? body.length : end);
        out += quoted.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
        i = end < 0 ? body.length : end + 2;
        continue;
      }
      if (!inClass && n === "A") out += "(?<![\\s\\S])";
      else if (!inClass && n === "z") out += "(?![\\s\\S])";
      else if (!inClass && n === "Z") out += "(?=\\n?(?![\\s\\S]))";
      else if (n === "h") out += inClass ? HORIZONTAL_SPACE.slice(1, -1) : HORIZONTAL_SPACE;
      else if ((n === "p" || n === "P") && body[i + 2] === "{" && body.includes("}", i + 3)) {
        // Copied whole, so the '}' closing the name is not taken for a {n} quantifier.
        const end = body.indexOf("}", i + 3) + 1;
        unicode = true;
        out += body.slice(i, end);
        i = end;
        continue;
      } else if ((n === "p" || n === "P") && /^[A-Za-z]$/.test(body[i + 2] ?? "")) {
        // Java's one-letter form \pL is \p{L} in JavaScript.
        unicode = true;
        out += `\\${n}{${body[i + 2]}}`;
        i += 3;
        continue;
      } else {
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
      if (body[i + 1] === "^") {
        out += "^";
        i++;
      }
      i++;
      continue;
    }
    out += c;
    i++;
    // Possessive quantifiers: drop the '+' that follows a quantifier.
    if ((c === "*" || c === "+" || c === "?" || c === "}") && body[i] === "+") {
      const prev = out.length >= 2 ? out[out.length - 2] : "";
      const isQuantifier = c !== "?" || (prev !== "(" && prev !== "");
      if (isQuantifier) i++;
    }
  }
  return { source: out, flags, unicode };
}

const COMMENT_SPACE = new Set([" ", "\t", "\n", "\u000b", "\f", "\r"]);
const LINE_END = /[\n\r\u0085\u2028\u2029]/;

/**
 * COMMENTS mode ((?x)): white space and #-comments to the end of the line are not part of the
 * pattern, inside character classes too; an escaped space or # is the character itself, and
 * \Q…\E quotes everything up to \E.
 */
function withoutComments(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      const n = body[i + 1];
      if (n === "Q") {
        const end = body.indexOf("\\E", i + 2);
        const stop = end < 0 ? body.length : end + 2;
        out += body.slice(i, stop);
        i = stop - 1;
      } else if (n !== undefined && (COMMENT_SPACE.has(n) || n === "#")) {
        out += "\\x" + n.charCodeAt(0).toString(16).padStart(2, "0");
        i++;
      } else {
        out += c + (n ?? "");
        i++;
      }
    } else if (c === "#") {
      while (i + 1 < body.length && !LINE_END.test(body[i + 1]!)) i++;
    } else if (!COMMENT_SPACE.has(c)) {
      out += c;
    }
  }
  return out;
}
