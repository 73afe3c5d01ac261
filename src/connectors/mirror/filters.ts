// MirrorMaker 2's default filters, as Kafka's DefaultTopicFilter, DefaultGroupFilter and
// DefaultConfigPropertyFilter: lists of names and regexes joined into one pattern that must match a
// whole name. An empty list matches nothing (Kafka: a blank setting selects nothing, not everything).
import { ConfigError } from "../../platform/settings.ts";

export const TOPICS_DEFAULT = [".*"];
/** Kafka 4.1's (4.0 narrowed `.*[\-\.]internal` to MM2's own topics). */
export const TOPICS_EXCLUDE_DEFAULT = ["mm2.*\\.internal", ".*\\.replica", "__.*"];
export const GROUPS_DEFAULT = [".*"];
export const GROUPS_EXCLUDE_DEFAULT = ["console-consumer-.*", "connect-.*", "__.*"];
/** Topic configs Kafka 4.1's MM2 never copies: throttles, timestamp handling and durability are each cluster's own. */
export const CONFIG_PROPERTIES_EXCLUDE_DEFAULT = [
  "follower\\.replication\\.throttled\\.replicas",
  "leader\\.replication\\.throttled\\.replicas",
  "message\\.timestamp\\.difference\\.max\\.ms",
  "message\\.timestamp\\.type",
  "unclean\\.leader\\.election\\.enable",
  "min\\.insync\\.replicas",
];

export const DEFAULT_TOPIC_FILTER = "org.apache.kafka.connect.mirror.DefaultTopicFilter";
export const DEFAULT_GROUP_FILTER = "org.apache.kafka.connect.mirror.DefaultGroupFilter";
export const DEFAULT_CONFIG_PROPERTY_FILTER = "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter";

/**
 * One pattern for a list, matched against whole names (Java's Pattern.matches); undefined for an empty
 * list. Java's regex syntax is read as JavaScript's, which agrees for the patterns topic names need.
 */
export function compilePatternList(setting: string, patterns: string[]): RegExp | undefined {
  if (patterns.length === 0) return undefined;
  const joined = patterns.join("|");
  try {
    return new RegExp(`^(?:${joined})$`);
  } catch (err) {
    throw new ConfigError(setting, patterns.join(","), `not a valid regular expression: ${(err as Error).message}`);
  }
}

/** Includes that match and excludes that do not (excludes win). */
class IncludeExclude {
  private readonly include: RegExp | undefined;
  private readonly exclude: RegExp | undefined;
  constructor(includeSetting: string, include: string[], excludeSetting: string, exclude: string[]) {
    this.include = compilePatternList(includeSetting, include);
    this.exclude = compilePatternList(excludeSetting, exclude);
  }
  test(name: string): boolean {
    return (this.include?.test(name) ?? false) && !(this.exclude?.test(name) ?? false);
  }
}

/** `topics` / `topics.exclude`. */
export class TopicFilter {
  private readonly filter: IncludeExclude;
  constructor(topics: string[] = TOPICS_DEFAULT, exclude: string[] = TOPICS_EXCLUDE_DEFAULT) {
    this.filter = new IncludeExclude("topics", topics, "topics.exclude", exclude);
  }
  shouldReplicateTopic(topic: string): boolean {
    return this.filter.test(topic);
  }
}

/** `groups` / `groups.exclude`. */
export class GroupFilter {
  private readonly filter: IncludeExclude;
  constructor(groups: string[] = GROUPS_DEFAULT, exclude: string[] = GROUPS_EXCLUDE_DEFAULT) {
    this.filter = new IncludeExclude("groups", groups, "groups.exclude", exclude);
  }
  shouldReplicateGroup(group: string): boolean {
    return this.filter.test(group);
  }
}

/**
 * `config.properties.exclude`: the topic configs a config sync leaves alone on the target; and
 * `use.defaults.from` (`target`, Kafka's default, or `source`): whether a config the source topic has at
 * its cluster's default is copied as a value or left to the target's default.
 */
export class ConfigPropertyFilter {
  private readonly exclude: RegExp | undefined;
  constructor(
    exclude: string[] = CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
    private readonly useDefaultsFrom: "source" | "target" = "target",
  ) {
    this.exclude = compilePatternList("config.properties.exclude", exclude);
  }
  shouldReplicateConfigProperty(name: string): boolean {
    return !(this.exclude?.test(name) ?? false);
  }
  shouldReplicateSourceDefault(_name: string): boolean {
    return this.useDefaultsFrom === "source";
  }
}
