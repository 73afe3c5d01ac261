// A registry's durable log: a compacted single-partition topic on the broker (`_schemas`, or the DEK
// registry's `_dek_registry_keys`), tailed into an in-memory state. A write is answered only after the
// broker acknowledged it AND it was read back into the state (read-your-writes); nothing is applied to
// the state except by reading the topic.
import { BrokerError, type Broker, type Bytes } from "../../broker/broker.ts";
import type { Logger } from "../../platform/log.ts";
import { errors, RegistryError } from "../errors.ts";

export interface TopicLogOptions {
  topic: string;
  replicationFactor: number;
  /** How long a write waits to be read back (Confluent's kafkastore.timeout.ms). */
  timeoutMs: number;
  /** How long start-up may take to read the topic to its end (kafkastore.init.timeout.ms). */
  initTimeoutMs: number;
}

/** What a log is tailed into: every record read, in offset order. */
export interface LogState {
  apply(key: Bytes | null, value: Bytes | null, read: { offset: number; timestamp: number }): unknown;
}

/** How a log's records become key and value bytes, and what it says about itself. */
export interface LogCodec<R, S> {
  /** "schemas": the log's name in messages ("reading the schemas topic"). */
  name: string;
  log: Logger;
  encode(record: R): { key: Bytes; value: Bytes | null };
  /** Why `record` must not be written (replay would not apply it as written), if so: a bug, answered 500. */
  refuse(record: R, key: Bytes, value: Bytes | null): string | undefined;
  /** What the start-up log line tells about the state read. */
  summary(state: S): Record<string, unknown>;
  /** The 50001 message of a failed write. */
  writeFailed(reason: string): string;
  /** Confluent's start-up errors for a topic that is not single-partition and compacted. */
  badTopic(topic: string, problem: { partitions: number } | "not compacted"): string;
}

/** Who may write: with several instances, only the elected leader (registry/cluster.ts). */
export interface WriterCheck {
  /** Throws when this instance may not write now (ForwardToLeader, or 50004 while no leader is known). */
  checkWriter(): void;
}

export class TopicLog<R, S extends LogState> {
  /** Next offset to apply. */
  private position = 0;
  private running = false;
  private tail?: Promise<void>;
  private readonly waiters = new Set<{ offset: number; resolve: () => void }>();
  private writeChain: Promise<unknown> = Promise.resolve();
  /** Offset of this instance's last write that was read back; undefined after a failure. */
  private lastWrite?: number;
  /** Set while the tail loop cannot read; shown by health and logs. */
  lastReadError?: string;
  /** Set once start() read the topic to its end: the state is complete (GET /health). */
  loaded = false;
  /** Without one, this instance is the only writer (embedded broker, tests). */
  writer?: WriterCheck;

  constructor(
    private readonly broker: Broker,
    readonly state: S,
    private readonly options: TopicLogOptions,
    private readonly codec: LogCodec<R, S>,
  ) {}

  async start(): Promise<void> {
    const { topic } = this.options;
    const existing = await this.broker.describeTopic(topic);
    if (!existing) {
      await this.broker.createTopic({
        name: topic,
        partitions: 1,
        replicationFactor: this.options.replicationFactor,
        config: { "cleanup.policy": "compact" },
      });
      this.codec.log.info({ topic }, `created the ${this.codec.name} topic`);
    } else {
      // As Confluent: a multi-partition or non-compacted store would lose or reorder records.
      if (existing.partitions !== 1) throw new Error(this.codec.badTopic(topic, { partitions: existing.partitions }));
      const policy = existing.config["cleanup.policy"];
      if (policy !== undefined && policy !== "compact") throw new Error(this.codec.badTopic(topic, "not compacted"));
    }
    this.running = true;
    this.tail = this.tailLoop();
    const end = (await this.broker.endOffsets(topic))[0] ?? 0;
    await this.waitFor(end, this.options.initTimeoutMs, `reading the ${this.codec.name} topic at start-up`);
    this.loaded = true;
    this.codec.log.info(
      { topic, records: end, ...this.codec.summary(this.state) },
      `${this.codec.name} topic read to its end`,
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.tail;
  }

  /**
   * This instance becomes (or stops being) the writer: the next write first reads what others wrote.
   * A new leader also catches up at once, so its first write does not wait for it.
   */
  async leadershipChanged(leader: boolean): Promise<void> {
    this.lastWrite = undefined;
    if (leader)
      await this.catchUp().catch((err) =>
        this.codec.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          `could not read the ${this.codec.name} topic to its end on becoming leader`,
        ),
      );
  }

  /** Waits until everything written to the topic so far has been applied (before a leader writes). */
  async catchUp(deadline = Date.now() + this.options.timeoutMs): Promise<void> {
    const end = await this.guard(() => this.broker.endOffsets(this.options.topic));
    await this.waitFor(end[0] ?? 0, deadline - Date.now(), `reading the ${this.codec.name} topic`);
  }

  /**
   * Runs `decide` with the state caught up and no other write in between (the single writer), then
   * writes the records it returns and waits until they are applied. The caller is answered within
   * kafkastore.timeout.ms of calling, time queued behind earlier writes included: while the broker is
   * away each write would otherwise wait for all those before it.
   */
  exclusive<T>(decide: () => Promise<{ records: R[]; result: T }>): Promise<T> {
    this.writer?.checkWriter();
    const deadline = Date.now() + this.options.timeoutMs;
    const run = this.writeChain.then(async () => {
      if (Date.now() >= deadline) throw this.timedOut("waiting for earlier writes to the backend store");
      // Leadership may have moved while this write waited for the one before.
      this.writer?.checkWriter();
      // As Confluent: after a write of ours was read back, the state is current for the one writer;
      // otherwise (first write, or a failed one) ask the broker where the end is.
      if (this.lastWrite === undefined) await this.catchUp(deadline);
      const { records, result } = await decide();
      if (records.length > 0) await this.write(records, deadline);
      return result;
    });
    // The next write starts only once this one is settled, even after its caller was answered: a
    // produce still in flight may yet land, and the next write must read it before choosing an id.
    this.writeChain = run.catch(() => undefined);
    return this.beforeDeadline(run, deadline);
  }

  private async write(records: R[], deadline: number): Promise<void> {
    const encoded = records.map((record) => ({ record, ...this.codec.encode(record), partition: 0 }));
    // The last guard before the log: a record replay would skip or misapply is a bug, answered 500.
    for (const e of encoded) {
      const refused = this.codec.refuse(e.record, e.key, e.value);
      if (refused) throw new Error(refused);
    }
    this.lastWrite = undefined;
    const positions = await this.guard(() =>
      this.broker.produce(
        this.options.topic,
        encoded.map(({ key, value, partition }) => ({ key, value, partition })),
      ),
    );
    const last = positions[positions.length - 1]!.offset;
    await this.waitFor(last + 1, deadline - Date.now(), "reading back a write");
    this.lastWrite = last;
  }

  /** `work`'s outcome, or 50002 once the deadline passes (`work` goes on; the write chain waits for it). */
  private beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.timedOut("writing to the backend store")),
        Math.max(0, deadline - Date.now()),
      );
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }

  private timedOut(what: string): RegistryError {
    const cause = this.lastReadError ? `: ${this.lastReadError}` : "";
    return errors.timeout(`Timed out after ${this.options.timeoutMs} ms (kafkastore.timeout.ms) ${what}${cause}`);
  }

  private async guard<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      this.codec.log.error({ err: reason }, `${this.codec.name} topic write failed`);
      throw errors.store(this.codec.writeFailed(reason));
    }
  }

  private waitFor(offset: number, timeoutMs: number, what: string): Promise<void> {
    if (this.position >= offset) return Promise.resolve();
    if (timeoutMs <= 0)
      return Promise.reject(
        errors.timeout(`Timed out ${what} up to offset ${offset} (at ${this.position}) in the backend store`),
      );
    return new Promise((resolve, reject) => {
      const waiter = {
        offset,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const cause = this.lastReadError ? `: ${this.lastReadError}` : "";
        reject(
          errors.timeout(`Timed out ${what} up to offset ${offset} (at ${this.position}) in the backend store${cause}`),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private async tailLoop(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      try {
        const records = await this.broker.fetch(this.options.topic, 0, this.position, { maxWaitMs: 200 });
        for (const r of records) {
          this.state.apply(r.key, r.value, r);
          this.position = r.offset + 1;
        }
        if (records.length === 0) {
          // Compaction can leave the position inside a gap; skip to the log end when nothing is there.
          const end = (await this.broker.endOffsets(this.options.topic))[0] ?? 0;
          const nothingMore =
            end > this.position && (await this.broker.fetch(this.options.topic, 0, this.position)).length === 0;
          if (nothingMore) this.position = end;
        }
        this.lastReadError = undefined;
        backoff = 100;
        for (const w of this.waiters) {
          if (this.position >= w.offset) {
            this.waiters.delete(w);
            w.resolve();
          }
        }
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        if (this.lastReadError !== reason)
          this.codec.log.warn(
            { err: reason, retriable: err instanceof BrokerError && err.retriable },
            `cannot read the ${this.codec.name} topic; retrying`,
          );
        this.lastReadError = reason;
        await Bun.sleep(backoff); // retry back-off while the broker is away
        backoff = Math.min(backoff * 2, 2000);
      }
    }
  }
}
