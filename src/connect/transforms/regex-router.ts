// RegexRouter: when the regex matches the whole topic (Java Matcher.matches()), the topic becomes
// Matcher.replaceFirst(replacement) with Java's `$1` / `${name}` group references; otherwise the record
// is unchanged. The replacement is checked against the regex's groups at configure time (Kafka only
// finds a bad group reference when the first matching record arrives). The match runs on a regex
// thread under a time budget, once per topic name (regex-budget.ts).
import { SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { JavaPattern, JavaReplacement } from "../../jvm/java-regex.ts";
import { PerInput } from "../../jvm/regex-budget.ts";
import { invalidConfig, parseSettings } from "./transform-settings.ts";

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
  {
    name: "regex",
    type: "string",
    required: true,
    importance: "high",
    doc: "Regular expression to use for matching.",
    validate: regexProblem,
  },
  { name: "replacement", type: "string", required: true, importance: "high", doc: "Replacement string." },
]);

export class RegexRouter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private regex: JavaPattern | null = null;
  private replacement: JavaReplacement | null = null;
  /** Each topic's new name, or null when the regex does not match it. */
  private readonly routes = new PerInput<string | null>();

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

  apply(record: R): R | Promise<R> {
    const route = this.routes.get(record.topic, () => this.route(record.topic));
    return route instanceof Promise ? route.then((topic) => routed(record, topic)) : routed(record, route);
  }

  private async route(topic: string): Promise<string | null> {
    const { regex, replacement } = this;
    if (regex === null || replacement === null || !(await regex.matchesWithin("RegexRouter regex", topic))) return null;
    return regex.replaceFirstWithin("RegexRouter regex", topic, replacement);
  }
}

function routed<R extends ConnectRecord>(record: R, topic: string | null): R {
  return topic === null ? record : newRecord(record, { topic });
}
