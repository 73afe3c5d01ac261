// Schema patterns are Java regular expressions (Confluent compiles them with java.util.regex).
// JavaScript's engine covers the common subset; the usual Java-only spellings (leading inline
// flags, possessive quantifiers, \A \z \Z anchors) are translated, the rest taken as JS reads it.

const cache = new Map<string, RegExp | null>();

/** A RegExp matching like Java's `Pattern.compile(p).matcher(s).find()`, or null if it cannot compile. */
export function compileJavaPattern(pattern: string): RegExp | null {
  let re = cache.get(pattern);
  if (re === undefined) {
    re = translate(pattern);
    if (cache.size > 10_000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

function translate(pattern: string): RegExp | null {
  let flags = "";
  let body = pattern;
  const inline = /^\(\?([imsux]+)\)/.exec(body);
  if (inline) {
    for (const f of inline[1]) if ((f === "i" || f === "m" || f === "s") && !flags.includes(f)) flags += f;
    body = body.slice(inline[0].length);
  }
  body = body
    .replace(/(\*|\+|\?|\})\+/g, (m, q: string, offset: number, whole: string) => (isEscaped(whole, offset) ? m : q))
    .replace(/\\([AzZ])/g, (m, c: string, offset: number, whole: string) => {
      if (isEscaped(whole, offset)) return m;
      return c === "A" ? "(?<![\\s\\S])" : c === "z" ? "(?![\\s\\S])" : "(?=\\n?(?![\\s\\S]))";
    });
  for (const f of ["u", ""]) {
    try {
      return new RegExp(body, flags + f);
    } catch {
      // try the next dialect
    }
  }
  return null;
}

/** Whether the character at `offset` is preceded by an odd number of backslashes. */
function isEscaped(s: string, offset: number): boolean {
  let n = 0;
  for (let i = offset - 1; i >= 0 && s[i] === "\\"; i--) n++;
  return n % 2 === 1;
}
