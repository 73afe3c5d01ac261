import { describe, expect, test } from "bun:test";
import {
  TASKS_MAX_LIMIT,
  sinkConnectorDefinition,
  sinkTopicProblems,
  taskCountProblem,
  topicsMatching,
} from "#src/connect/runtime/worker/connector-config.ts";

const settings = (config: Record<string, string>) =>
  sinkConnectorDefinition.parse({ name: "c", "connector.class": "FileStreamSink", topics: "t", ...config }).values;

describe("tasks.max", () => {
  test("is bounded by TASKS_MAX_LIMIT", () => {
    expect(settings({ "tasks.max": String(TASKS_MAX_LIMIT) }).int("tasks.max")).toBe(TASKS_MAX_LIMIT);
    expect(() => settings({ "tasks.max": String(TASKS_MAX_LIMIT + 1) })).toThrow(`must be at most ${TASKS_MAX_LIMIT}`);
  });

  test("more task configs than tasks.max fail the connector, as Kafka's tasks.max.enforce does", () => {
    expect(taskCountProblem("c", 2, settings({ "tasks.max": "2" }))).toEqual({});
    expect(taskCountProblem("c", 3, settings({ "tasks.max": "2" })).fail).toStartWith(
      "The connector c has generated 3 tasks, which is greater than 2, the maximum number of tasks it is configured to create. This behaviour should be considered a bug and is disallowed.",
    );
  });

  test("tasks.max.enforce=false keeps them with a warning, up to the bound", () => {
    const lax = settings({ "tasks.max": "2", "tasks.max.enforce": "false" });
    expect(taskCountProblem("c", 3, lax)).toEqual({
      warn: "The connector c has generated 3 tasks, which is greater than 2, the maximum number of tasks it is configured to create.",
    });
    expect(taskCountProblem("c", TASKS_MAX_LIMIT + 1, lax).fail).toEndWith(
      `Sluice runs at most ${TASKS_MAX_LIMIT} tasks of a connector.`,
    );
  });
});

describe("topics.regex", () => {
  test("selects whole topic names with Java's syntax", async () => {
    expect(await topicsMatching("(?i)ORDERS\\.\\d+", ["orders.1", "orders.x", "my-orders.2", "Orders.22"])).toEqual([
      "orders.1",
      "Orders.22",
    ]);
  });

  test("a pattern that passes validation is the one the worker and offsets admin match with", async () => {
    // (?i) is Java-only syntax: a bare JS RegExp refuses it, which once failed such tasks at start.
    expect(await sinkTopicProblems({ "topics.regex": "(?i)orders\\..*" })).toEqual(new Map());
    expect(
      await topicsMatching("(?i)orders\\..*", ["ORDERS.x", "orders.y.z", "orders", "my.orders.x", "ORDERSx"]),
    ).toEqual(["ORDERS.x", "orders.y.z"]);
    // Matcher.matches(): the whole name, not a part of it (find()).
    expect(await topicsMatching("orders", ["orders", "orders2", "xorders"])).toEqual(["orders"]);
    expect(await topicsMatching("a|b", ["a", "b", "ab"])).toEqual(["a", "b"]);
  });
});
