// Kafka Connect's error handling (RetryWithToleranceOperator): retry retriable failures for up to
// errors.retry.timeout with backoff; then either fail the task (errors.tolerance=none) or skip the
// record (all), logging it (errors.log.*) and handing it to the task's reporters (for sinks, the
// dead letter queue).
import type { FetchedRecord } from "../../../broker/broker.ts";
import { logger } from "../../../platform/log.ts";
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { TaskMetrics } from "../metrics.ts";
import { ConnectException, RetriableException } from "../../api/connector.ts";

const log = logger("connect-errors");

/** Kafka's Stage names, written into DLQ headers. */
export type Stage =
  | "KEY_CONVERTER"
  | "VALUE_CONVERTER"
  | "HEADER_CONVERTER"
  | "TRANSFORMATION"
  | "TASK_PUT"
  | "TASK_POLL"
  | "KAFKA_PRODUCE"
  | "KAFKA_CONSUME";

/** Where a failure happened (Kafka's ProcessingContext). */
export interface ErrorContext {
  stage: Stage;
  /** The class whose code failed (connector, converter or transform class name). */
  className: string;
  /** What the log shows of the record when errors.log.include.messages is on. */
  describe: () => string;
  /** The record as read from the broker, for a sink: what a dead letter queue receives. */
  original?: FetchedRecord;
}

/** Told of each tolerated failure (Kafka's ErrorReporter), e.g. the dead letter queue. */
export interface ErrorReporter {
  report(error: Error, context: ErrorContext): Promise<void>;
}

export const TOLERATED = Symbol("tolerated");

export class RetryWithToleranceOperator {
  private readonly retryTimeoutMs: number;
  private readonly maxDelayMs: number;
  private readonly tolerateAll: boolean;
  private readonly logErrors: boolean;
  private readonly logMessages: boolean;

  constructor(
    settings: ParsedSettings,
    private readonly taskId: string,
    private readonly metrics: TaskMetrics,
    private readonly reporters: readonly ErrorReporter[] = [],
  ) {
    this.retryTimeoutMs = settings.int("errors.retry.timeout");
    this.maxDelayMs = settings.int("errors.retry.delay.max.ms");
    this.tolerateAll = settings.string("errors.tolerance") === "all";
    this.logErrors = settings.boolean("errors.log.enable");
    this.logMessages = settings.boolean("errors.log.include.messages");
  }

  /**
   * Runs `operation`; returns TOLERATED when it failed and the failure is tolerated. What answers at once
   * (converters and transforms nearly always do) is returned as it is: no promise per record and stage.
   */
  execute<T>(context: ErrorContext, operation: () => T | Promise<T>): T | Promise<T | typeof TOLERATED> {
    const started = Date.now(); // errors.retry.timeout counts from the first attempt, as in Kafka
    let result: T | Promise<T>;
    try {
      result = operation();
    } catch (err) {
      return this.retrying(context, operation, started, { thrown: err });
    }
    return result instanceof Promise ? this.retrying(context, operation, started, { pending: result }) : result;
  }

  /** The first attempt's outcome, then retries of retriable failures within errors.retry.timeout. */
  private async retrying<T>(
    context: ErrorContext,
    operation: () => T | Promise<T>,
    started: number,
    first: { pending: Promise<T> } | { thrown: unknown },
  ): Promise<T | typeof TOLERATED> {
    const deadline = this.retryTimeoutMs < 0 ? Infinity : started + this.retryTimeoutMs;
    let delay = 300;
    let attempt: (() => T | Promise<T>) | undefined = () => {
      if ("pending" in first) return first.pending;
      throw first.thrown;
    };
    for (;;) {
      try {
        const run = attempt ?? operation;
        attempt = undefined;
        return await run();
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        if (error instanceof RetriableException && Date.now() + delay < deadline) {
          await Bun.sleep(delay); // retry back-off (errors.retry.*)
          delay = Math.min(delay * 2, this.maxDelayMs);
          continue;
        }
        return this.failed(error, context);
      }
    }
  }

  /**
   * Whether a sink task gets an errant record reporter: as Kafka, when there is a dead letter queue or
   * errors.log.enable is on.
   */
  get reportsErrantRecords(): boolean {
    return this.reporters.length > 0 || this.logErrors;
  }

  /**
   * A failure the task met on its own (Kafka's executeFailed, behind the errant record reporter): logged
   * and reported (the dead letter queue) first, then a ConnectException when errors.tolerance is none.
   */
  async reportFailed(error: Error, context: ErrorContext): Promise<void> {
    this.metrics.recordError(this.tolerateAll);
    this.logFailure(error, context);
    for (const reporter of this.reporters) await reporter.report(error, context);
    if (!this.tolerateAll) throw new ConnectException("Tolerance exceeded in error handler", error);
  }

  private async failed(error: Error, context: ErrorContext): Promise<typeof TOLERATED> {
    this.metrics.recordError(this.tolerateAll);
    this.logFailure(error, context);
    if (!this.tolerateAll) throw new ConnectException("Tolerance exceeded in error handler", error);
    for (const reporter of this.reporters) await reporter.report(error, context);
    return TOLERATED;
  }

  private logFailure(error: Error, context: ErrorContext): void {
    if (!this.logErrors && this.tolerateAll) return;
    const detail = this.logMessages ? `, where ${context.describe()}` : "";
    log.error(
      { task: this.taskId, stage: context.stage, class: context.className, err: withCauses(error) },
      `Error encountered in task ${this.taskId}. Executing stage '${context.stage}' with class '${context.className}'${detail}.`,
    );
  }
}

/** The error's message and its causes', as Kafka's logged trace shows them ("Caused by: …"). */
function withCauses(error: Error): string {
  const parts = [error.message.trim()];
  for (let cause = error.cause; cause instanceof Error; cause = cause.cause) parts.push(`Caused by: ${cause.message}`);
  return parts.join(" ");
}
