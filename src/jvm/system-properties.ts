// JVM system properties as Kafka's scripts pass them: `-Dname=value` flags in KAFKA_OPTS. The few
// properties Kafka defines are read from there, so a deployment's environment works unchanged.

/** The value of `-Dname=…` in KAFKA_OPTS (the last one when repeated), or undefined. */
export function systemProperty(
  name: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  let value: string | undefined;
  for (const flag of shellWords(env.KAFKA_OPTS ?? "")) {
    if (flag.startsWith(`-D${name}=`)) value = flag.slice(name.length + 3);
    else if (flag === `-D${name}`) value = "";
  }
  return value;
}

/** Words as a shell splits them: whitespace outside quotes; quotes removed. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= "";
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}
