// RegexRouter: when the regex matches the whole topic (Java Matcher.matches()), the topic becomes
// Matcher.replaceFirst(replacement) with Java's `$1` / `${name}` group references; otherwise the record
// is unchanged. The replacement is checked against the regex's groups at configure time (Kafka only
// finds a bad group reference when the first matching record arrives).
import { SettingsDefinition } from "../../common/settings.ts";
import type { ConnectRecord } from "../plugins/records.ts";
import { newRecord } from "../plugins/records.ts";
import type { Transformation } from "../plugins/transformation.ts";
import { JavaPattern, JavaReplacement } from "./java-regex.ts";
import { invalidConfig, parseSettings } from "./util.ts";

/** Kafka's RegexValidator, for settings holding a Java regex. */
export function regexProblem(value: unknown): string | undefined {
  try {
    JavaPattern.compile(String(value));
    return undefined;
  } catch (e) {
    return `Invalid regex: ${(e as Error).message}`;
  }
}

const DEFINITION = new SettingsDefinition([
  { name: "regex", type: "string", required: true, importance: "high", doc: "Regular expression to use for matching.", validate: regexProblem },
  { name: "replacement", type: "string", required: true, importance: "high", doc: "Replacement string." },
]);

export class RegexRouter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private regex: JavaPattern | null = null;
  private replacement: JavaReplacement | null = null;

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(DEFINITION, config);
    const regex = JavaPattern.compile(s.string("regex"));
    const replacement = s.string("replacement");
    try {
      this.replacement = JavaReplacement.compile(replacement, regex);
    } catch (e) {
      throw invalidConfig("replacement", replacement, (e as Error).message);
    }
    this.regex = regex;
  }

  apply(record: R): R {
    const regex = this.regex;
    if (regex === null || this.replacement === null || !regex.matches(record.topic)) return record;
    return newRecord(record, { topic: regex.replaceFirst(record.topic, this.replacement) });
  }
}
