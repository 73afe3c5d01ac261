// Retries that are routine for a moment (a fresh Kafka's coordinator not ready yet, a topic's leader
// being elected) are no news: logged at debug while short, one WARN once they persist, and an INFO when
// the retried step succeeds after that WARN.
import type { Logger } from "./log.ts";

/** How long a failure lasts before it is worth a WARN: a fresh Kafka answers within a few seconds. */
const PERSISTENT_FAILURE_MS = 10_000;

export class RetryLog {
  private failingSince = 0;
  private warned = false;

  constructor(
    private readonly log: Logger,
    private readonly persistentMs = PERSISTENT_FAILURE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  failed(fields: Record<string, unknown>, message: string): void {
    this.failingSince ||= this.now();
    const lasting = this.now() - this.failingSince;
    if (this.warned || lasting < this.persistentMs) return void this.log.debug(fields, message);
    this.warned = true;
    this.log.warn({ ...fields, failingForMs: lasting }, `${message} (failing for ${Math.round(lasting / 1000)} s)`);
  }

  succeeded(message: string): void {
    if (this.warned) this.log.info({ failedForMs: this.now() - this.failingSince }, message);
    this.failingSince = 0;
    this.warned = false;
  }
}
