// What a failure of @platformatic/kafka means for our callers: retriable or not, and the Kafka error it
// carries (by Kafka's name, e.g. REBALANCE_IN_PROGRESS), wherever it sits in the library's error chain.
import { findErrorBy, GenericError, NetworkError } from "@platformatic/kafka";

/** Kafka's name of the first protocol error in the chain that is one of `names`. */
export function kafkaErrorOf(err: unknown, names: Iterable<string>): string | undefined {
  if (!(err instanceof Error)) return undefined;
  for (const name of names) if (findErrorBy(err, "apiId", name)) return name;
  return undefined;
}

/**
 * A network failure (refused, closed, timed out) or errors that all say they may be retried. The
 * library marks its own timeouts as not retriable; for us a broker that does not answer in time is
 * one that may answer later.
 */
export function isRetriable(err: unknown): boolean {
  if (!(err instanceof Error) || !GenericError.isGenericError(err)) return false;
  return findErrorBy(err, "code", NetworkError.code) !== null || findErrorBy(err, "canRetry", false) === null;
}

/** The message of an error with the messages of what it aggregates (the library nests the real reason). */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const nested = err instanceof AggregateError ? err.errors.map(reasonOf) : err.cause ? [reasonOf(err.cause)] : [];
  const detail = (err as { serverErrorMessage?: unknown }).serverErrorMessage;
  const own = typeof detail === "string" && detail ? `${err.message} (${detail})` : err.message;
  return nested.length > 0 ? `${own}: ${[...new Set(nested)].join("; ")}` : own;
}

/**
 * How long the library waits before it asks again: 100 ms, doubling up to 2 s. Except when a transaction's
 * first AddPartitionsToTxn finds the coordinator still completing the previous one (CONCURRENT_TRANSACTIONS,
 * the markers are being written): that takes a few ms, so it is asked again after 20 ms, as Kafka's producer
 * does, rather than waiting out 100 ms at nearly every transaction (the first two retries; then as usual).
 */
export function retryDelayMs(operation: string, attempt: number, error: unknown): number {
  if (operation === "addPartitionsToTransaction" && attempt <= 2 && kafkaErrorOf(error, ["CONCURRENT_TRANSACTIONS"]))
    return 20;
  return Math.min(100 * 2 ** (attempt - 1), 2000);
}
