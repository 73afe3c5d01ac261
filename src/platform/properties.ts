// Java `.properties` syntax (java.util.Properties#load): comments (# !), separators (= : whitespace),
// line continuations, and \t \n \r \f \uXXXX escapes.

export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(/^[ \t\f]+/, "");
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    // An odd number of trailing backslashes continues the logical line.
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + lines[++i]!.replace(/^[ \t\f]+/, "");
    }
    let k = 0;
    while (k < line.length && !"=: \t\f".includes(line[k]!)) k += line[k] === "\\" ? 2 : 1;
    const key = unescape(line.slice(0, k));
    let rest = line.slice(k).replace(/^[ \t\f]*/, "");
    if (rest.startsWith("=") || rest.startsWith(":")) rest = rest.slice(1).replace(/^[ \t\f]*/, "");
    out[key] = unescape(rest);
  }
  return out;
}

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return ({ t: "\t", n: "\n", r: "\r", f: "\f" } as Record<string, string>)[c] ?? c;
  });
}

/**
 * Settings from environment variables in the Confluent image style: PREFIX_KAFKASTORE_TOPIC →
 * kafkastore.topic (`___` → `-`, `__` → `_`, `_` → `.`, lower-cased).
 */
export function propertiesFromEnv(prefix: string, env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(prefix) || value === undefined) continue;
    const key = name
      .slice(prefix.length)
      .toLowerCase()
      .replace(/___/g, "\u0000")
      .replace(/__/g, "\u0001")
      .replace(/_/g, ".")
      .replace(/\u0000/g, "-")
      .replace(/\u0001/g, "_");
    if (key) out[key] = value;
  }
  return out;
}
