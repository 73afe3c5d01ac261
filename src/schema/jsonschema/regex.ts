// Schema patterns are Java regular expressions (Confluent compiles them with java.util.regex);
// jvm/java-regex-translation translates them.
import { javaRegExp } from "../../jvm/java-regex-translation.ts";

const cache = new Map<string, RegExp | null>();

/** A RegExp matching like Java's `Pattern.compile(p).matcher(s).find()`, or null if it cannot compile. */
export function compileJavaPattern(pattern: string): RegExp | null {
  let re = cache.get(pattern);
  if (re === undefined) {
    re = translated(pattern);
    if (cache.size > 10_000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

function translated(pattern: string): RegExp | null {
  try {
    return javaRegExp(pattern);
  } catch {
    return null;
  }
}
