// A source connector's exactly-once settings checked as Kafka Connect's distributed herder checks them
// (KIP-618): `exactly.once.support=required` needs a worker with exactly-once source support and a
// connector that says it supports it; `transaction.boundary=connector` a connector that can define them.
import type { SourceConnector } from "../../api/connector.ts";

export interface ExactlyOnceCheck {
  problems: Map<string, string[]>;
  /** Settings that have no effect on this worker (Kafka ignores them silently), by name. */
  warnings: Map<string, string>;
}

const lower = (value: string | undefined) => (value ?? "").trim().toLowerCase();

export function exactlyOnceCheck(
  connector: SourceConnector,
  config: Record<string, string>,
  workerEnabled: boolean,
): ExactlyOnceCheck {
  const problems = new Map<string, string[]>();
  const warnings = new Map<string, string>();
  const add = (key: string, message: string) => problems.set(key, [...(problems.get(key) ?? []), message]);
  if (lower(config["exactly.once.support"]) === "required") {
    if (!workerEnabled) add("exactly.once.support", "This worker does not have exactly-once source support enabled.");
    const support = asked(() => connector.exactlyOnceSupport?.(config) ?? null);
    if (support instanceof Error)
      add("exactly.once.support", `An unexpected error occurred during validation: ${support.message}`);
    else if (support === null)
      add(
        "exactly.once.support",
        'The connector does not implement the API required for preflight validation of exactly-once source support. Please consult the documentation for the connector to determine whether it supports exactly-once semantics, and then consider reconfiguring the connector to use the value "requested" for this property (which will disable this preflight check and allow the connector to be created).',
      );
    else if (support !== "SUPPORTED")
      add(
        "exactly.once.support",
        "The connector does not support exactly-once semantics with the provided configuration.",
      );
  }
  const boundary = lower(config["transaction.boundary"]);
  if (boundary === "connector") {
    const able = asked(() => connector.canDefineTransactionBoundaries?.(config) ?? "UNSUPPORTED");
    if (able instanceof Error)
      add("transaction.boundary", `An unexpected error occurred during validation: ${able.message}`);
    else if (able !== "SUPPORTED")
      add(
        "transaction.boundary",
        "The connector does not support connector-defined transaction boundaries with the given configuration. Please reconfigure it to use a different transaction boundary definition.",
      );
  }
  if (workerEnabled)
    for (const [key, warning] of forcedProducerSettings(config, "producer.override.")) warnings.set(key, warning);
  if (!workerEnabled)
    for (const key of ["transaction.boundary", "transaction.boundary.interval.ms"])
      if (config[key] !== undefined && !(key === "transaction.boundary" && boundary === "poll"))
        warnings.set(
          key,
          `Setting ${key} has no effect on this worker: it has no exactly-once source support (exactly.once.source.support=enabled, on distributed workers only)`,
        );
  return { problems, warnings };
}

/**
 * Producer settings an exactly-once task's transactional producer cannot take (it is idempotent and
 * writes with acks=all), by their names under `prefix`: warned about, as Kafka's worker does, and not used.
 */
export function forcedProducerSettings(config: Record<string, string>, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  const idempotence = config[`${prefix}enable.idempotence`];
  if (idempotence !== undefined && idempotence.trim().toLowerCase() !== "true")
    out.set(
      `${prefix}enable.idempotence`,
      `Setting ${prefix}enable.idempotence=${idempotence} has no effect on exactly-once source tasks: their transactional producers are idempotent, as Kafka's`,
    );
  const acks = config[`${prefix}acks`];
  if (acks !== undefined && !["all", "-1"].includes(acks.trim().toLowerCase()))
    out.set(
      `${prefix}acks`,
      `Setting ${prefix}acks=${acks} has no effect on exactly-once source tasks: their transactional producers write with acks=all, as Kafka's`,
    );
  return out;
}

function asked<T>(question: () => T): T | Error {
  try {
    return question();
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
