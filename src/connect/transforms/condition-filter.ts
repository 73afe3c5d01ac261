// The Confluent-style Filter$Key / Filter$Value (the spec's io.vendor.connect.transforms.Filter$Value;
// also registered as io.confluent.connect.transforms.Filter$*): keeps (filter.type=include) or drops
// (exclude) records whose key/value matches the JSONPath `filter.condition` (see json-path.ts for the
// supported subset). A record whose value is null, or lacks a field the definite part of the path
// names, follows missing.or.null.behavior: fail (a DataException), include or exclude.
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { DataException } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { JsonPath, MatchPending, type PathResult, type RegexMatcher } from "./json-path.ts";
import { PerInput } from "../../jvm/regex-budget.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";

function conditionProblem(value: unknown): string | undefined {
  try {
    JsonPath.compile(String(value));
    return undefined;
  } catch (e) {
    return `Invalid JSON Path expression: ${(e as Error).message}`;
  }
}

const DEFINITION = new SettingsDefinition([
  {
    name: "filter.condition",
    type: "string",
    required: true,
    importance: "high",
    doc: "The JSONPath predicate records are matched against, e.g. `$[?(@.status == 'ACTIVE')]` or `$.amount`.",
    validate: conditionProblem,
  },
  {
    name: "filter.type",
    type: "string",
    required: true,
    oneOf: ["include", "exclude"],
    importance: "high",
    doc: "include keeps only matching records; exclude drops matching records.",
  },
  {
    name: "missing.or.null.behavior",
    type: "string",
    default: "fail",
    oneOf: ["fail", "include", "exclude"],
    importance: "medium",
    doc: "What to do with a record whose key/value is null or lacks the fields the condition refers to.",
  },
]);

export class ConditionFilter<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private condition: JsonPath | null = null;
  private include = true;
  private missingOrNull: "fail" | "include" | "exclude" = "fail";
  private readonly matched = new PerInput<boolean>();
  private readonly matches: RegexMatcher = (pattern, input) =>
    this.matched.get(`${pattern.pattern}\u0000${input}`, () => pattern.matchesWithin("filter.condition regex", input));

  protected readonly definition = DEFINITION;

  protected configureWith(s: ParsedSettings): void {
    this.condition = JsonPath.compile(s.string("filter.condition"));
    this.include = s.string("filter.type") === "include";
    this.missingOrNull = s.string("missing.or.null.behavior") as "fail" | "include" | "exclude";
  }

  apply(record: R): R | null | Promise<R | null> {
    const condition = this.condition;
    if (condition === null) return record;
    let result: PathResult;
    try {
      result = condition.evaluate(this.operatingValue(record), this.matches);
    } catch (e) {
      // A =~ went to a regex thread: evaluate again once it answered (then from the memo).
      if (e instanceof MatchPending) return e.answer.then(() => this.apply(record));
      throw e;
    }
    if (result.missingOrNull) {
      if (this.missingOrNull === "fail")
        throw new DataException(
          `Record ${this.side} is null or lacks a field used in filter condition ${condition.text} (topic ${record.topic})`,
        );
      return this.missingOrNull === "include" ? record : null;
    }
    return result.matched === this.include ? record : null;
  }
}
