// Kafka's built-in predicates (org.apache.kafka.connect.transforms.predicates.*).
import { SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "../api/records.ts";
import type { Predicate } from "../api/transformation.ts";
import { JavaPattern } from "../../jvm/java-regex.ts";
import { PerInput } from "../../jvm/regex-budget.ts";
import { regexProblem } from "./regex-router.ts";
import { invalidConfig, nonEmptyString, parseSettings } from "./transform-settings.ts";

const TOPIC_NAME_MATCHES = new SettingsDefinition([
  {
    name: "pattern",
    type: "string",
    required: true,
    importance: "medium",
    doc: "A Java regular expression for matching against the name of a record's topic.",
    validate: (v) => nonEmptyString(v) ?? regexProblem(v),
  },
]);

/** True when the whole topic name matches `pattern` (Java Matcher.matches()), on a regex thread under a time budget. */
export class TopicNameMatches<R extends ConnectRecord = ConnectRecord> implements Predicate<R> {
  private pattern: JavaPattern | null = null;
  private readonly matched = new PerInput<boolean>();

  config(): SettingsDefinition {
    return TOPIC_NAME_MATCHES;
  }

  configure(config: Record<string, string>): void {
    const value = parseSettings(TOPIC_NAME_MATCHES, config).string("pattern");
    try {
      this.pattern = JavaPattern.compile(value);
    } catch (e) {
      throw invalidConfig(
        "pattern",
        value,
        `entry must be a Java-compatible regular expression: ${(e as Error).message}`,
      );
    }
  }

  test(record: R): boolean | Promise<boolean> {
    const pattern = this.pattern;
    if (pattern === null || record.topic === null || record.topic === undefined) return false;
    return this.matched.get(record.topic, () => pattern.matchesWithin("TopicNameMatches pattern", record.topic));
  }

  toString(): string {
    return `TopicNameMatches{pattern=${this.pattern?.pattern ?? "null"}}`;
  }
}

const HAS_HEADER_KEY = new SettingsDefinition([
  {
    name: "name",
    type: "string",
    required: true,
    importance: "medium",
    doc: "The header name.",
    validate: nonEmptyString,
  },
]);

/** True for records with at least one header named `name`. */
export class HasHeaderKey<R extends ConnectRecord = ConnectRecord> implements Predicate<R> {
  private name = "";

  config(): SettingsDefinition {
    return HAS_HEADER_KEY;
  }

  configure(config: Record<string, string>): void {
    this.name = parseSettings(HAS_HEADER_KEY, config).string("name");
  }

  test(record: R): boolean {
    return record.headers.some((h) => h.key === this.name);
  }

  toString(): string {
    return `HasHeaderKey{name='${this.name}'}`;
  }
}

const NO_SETTINGS = new SettingsDefinition([]);

/** True for tombstones (a null value). */
export class RecordIsTombstone<R extends ConnectRecord = ConnectRecord> implements Predicate<R> {
  config(): SettingsDefinition {
    return NO_SETTINGS;
  }

  configure(): void {}

  test(record: R): boolean {
    return record.value === null || record.value === undefined;
  }

  toString(): string {
    return "RecordIsTombstone{}";
  }
}
