// RetryWithToleranceOperator on its own: what a failed operation becomes under errors.tolerance and
// errors.retry.timeout, what its reporters are told and what the task's error metric counts.
import { describe, expect, test } from "bun:test";
import { ConnectException, RetriableException } from "#src/connect/api/connector.ts";
import {
  RetryWithToleranceOperator,
  TOLERATED,
  type ErrorContext,
  type ErrorReporter,
} from "#src/connect/runtime/errors/tolerance.ts";
import { ConnectMetrics } from "#src/connect/runtime/metrics.ts";
import { sinkConnectorDefinition } from "#src/connect/runtime/worker/connector-config.ts";

const context: ErrorContext = {
  stage: "VALUE_CONVERTER",
  className: "org.apache.kafka.connect.json.JsonConverter",
  describe: () => "topic 'in' partition 0 offset 7",
};

/** A reporter that keeps what it was told (the dead letter queue's place). */
class RecordingReporter implements ErrorReporter {
  readonly reports: [string, ErrorContext][] = [];
  async report(error: Error, context: ErrorContext) {
    this.reports.push([error.message, context]);
  }
}

function withSettings(settings: Record<string, string>, reporters: ErrorReporter[] = []) {
  const metrics = new ConnectMetrics();
  const parsed = sinkConnectorDefinition.parse({ name: "c", "connector.class": "x", topics: "in", ...settings }).values;
  const errors = async () => {
    const text = await metrics.registry.metrics();
    return text.split("\n").filter((line) => line.startsWith("sluice_connect_record_errors_total{"));
  };
  return { operator: new RetryWithToleranceOperator(parsed, "c-0", metrics.task("c", 0), reporters), errors };
}

const failing = (error: unknown) => () => {
  throw error;
};

describe("RetryWithToleranceOperator", () => {
  test("an operation that succeeds gives its value and counts nothing", async () => {
    const { operator, errors } = withSettings({});
    expect(await operator.execute(context, () => 42)).toBe(42);
    expect(await operator.execute(context, async () => "later")).toBe("later");
    expect(await errors()).toEqual([]);
  });

  test("what answers at once is handed back as it is, with no promise made for it", () => {
    const { operator } = withSettings({});
    const value = { converted: true };
    expect(operator.execute(context, () => value)).toBe(value);
    expect(operator.execute(context, async () => value)).toBeInstanceOf(Promise);
  });

  test("an asynchronous operation's RetriableException is retried too, and its retries are asynchronous", async () => {
    const { operator } = withSettings({ "errors.retry.timeout": "5000" });
    let calls = 0;
    const result = await operator.execute(context, async () => {
      if (++calls === 1) throw new RetriableException("busy");
      return "done";
    });
    expect([result, calls]).toEqual(["done", 2]);
  });

  test("errors.tolerance=none: the failure becomes 'Tolerance exceeded', caused by it; reporters are not told", async () => {
    const reporter = new RecordingReporter();
    const { operator, errors } = withSettings({}, [reporter]);
    const cause = new Error("Unexpected character ('n')");
    const thrown = await operator.execute(context, failing(cause)).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(ConnectException);
    expect(thrown).toMatchObject({ message: "Tolerance exceeded in error handler", cause });
    expect(reporter.reports).toEqual([]);
    expect(await errors()).toEqual(['sluice_connect_record_errors_total{connector="c",task="0",outcome="failed"} 1']);
  });

  test("errors.tolerance=all: TOLERATED, and each reporter is told the error and where it happened", async () => {
    const first = new RecordingReporter();
    const second = new RecordingReporter();
    const { operator, errors } = withSettings({ "errors.tolerance": "all" }, [first, second]);
    expect(await operator.execute(context, failing(new Error("bad bytes")))).toBe(TOLERATED);
    // Something thrown that is no Error is reported as one.
    expect(await operator.execute(context, failing("a string"))).toBe(TOLERATED);
    expect(first.reports).toEqual([
      ["bad bytes", context],
      ["a string", context],
    ]);
    expect(second.reports).toEqual(first.reports);
    expect(await errors()).toEqual([
      'sluice_connect_record_errors_total{connector="c",task="0",outcome="tolerated"} 2',
    ]);
  });

  test("a RetriableException is not retried by default (errors.retry.timeout=0), nor is any other error", async () => {
    let calls = 0;
    const count = (error: Error) => () => {
      calls++;
      throw error;
    };
    const { operator: noRetries } = withSettings({ "errors.tolerance": "all" });
    expect(await noRetries.execute(context, count(new RetriableException("busy")))).toBe(TOLERATED);
    expect(calls).toBe(1);
    const { operator } = withSettings({ "errors.tolerance": "all", "errors.retry.timeout": "60000" });
    expect(await operator.execute(context, count(new Error("not retriable")))).toBe(TOLERATED);
    expect(calls).toBe(2);
  });

  test("within errors.retry.timeout a RetriableException is retried (after Kafka's first back-off, 300 ms) until it succeeds", async () => {
    const { operator, errors } = withSettings({ "errors.retry.timeout": "5000" });
    let calls = 0;
    const result = await operator.execute(context, () => {
      if (++calls === 1) throw new RetriableException("busy");
      return "done";
    });
    expect(result).toBe("done");
    expect(calls).toBe(2);
    expect(await errors()).toEqual([]);
  });
});
