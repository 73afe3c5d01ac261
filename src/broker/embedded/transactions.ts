// Transactions on the embedded broker: a transaction's records, to any topics and partitions, are written
// all or none, also across a crash.
//
// A produce in a transaction reserves the records' offsets in their partitions (PartitionLog.reserve), so
// it can answer their positions at once; appends after it in those partitions wait in line. Commit writes
// a commit record, <dataDir>/transactions/<n>.commit, holding every record as the frame it will be in its
// log, and makes it durable (written, fsynced, renamed into place): that is the commit point. Then the
// reservations are written in their partitions, and the commit record is removed. At start-up, a commit
// record still there is redone (PartitionLog.redo writes whatever of it is not in the log yet), so after
// kill -9 a transaction is complete in every partition or absent from all; one whose record never became
// durable is gone with the process's memory, and so is every open one.
//
// Readers see a committed transaction's records once they are written in all its partitions, in all of
// them at once (its gate holds each partition's visible end until then): none of an aborted or unfinished
// transaction, all of a committed one, never a transaction later undone. A transaction behind another's
// records in one of its partitions becomes visible with or after that one, so that no partition shows it
// first (transactions that are each behind the other somewhere become visible together).
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir, writeFileAtomic } from "../../platform/files.ts";
import type { Logger } from "../../platform/log.ts";
import {
  BrokerError,
  ProducerFencedError,
  type ProduceRecord,
  type RecordPosition,
  type TransactionalProducer,
  type TransactionOptions,
} from "../broker.ts";
import { Mutex } from "./mutex.ts";
import type { AppendRecord, Gate, PartitionLog, Reservation } from "./partition-log.ts";
import { bodyLengthAt, FRAME_HEADER_BYTES, frameIsIntact } from "./record-frame.ts";

/** Kafka's transaction.timeout.ms default. */
const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;
const COMMIT_SUFFIX = ".commit";

/** Records of one produce call bound for one partition, routed and validated by the broker. */
export interface PlacedRecords {
  topic: string;
  partition: number;
  log: PartitionLog;
  /** Indexes of the records in the produce call. */
  indexes: number[];
  records: AppendRecord[];
}

export interface TransactionHost {
  /** Routes and validates a produce call's records (creating the topic where the broker would). */
  place(topic: string, records: ProduceRecord[]): Promise<PlacedRecords[]>;
  partition(topic: string, partition: number): PartitionLog | undefined;
  log: Logger;
}

interface Reserved {
  topic: string;
  partition: number;
  log: PartitionLog;
  reservation: Reservation;
}

/** A transaction's gate, with the partitions it holds back. */
interface CommitGate extends Gate {
  logs: PartitionLog[];
  /** Resolves once the transaction is visible. */
  shown: Promise<void>;
  show: () => void;
}

function commitGate(logs: PartitionLog[]): CommitGate {
  let show!: () => void;
  const shown = new Promise<void>((resolve) => (show = resolve));
  return { visible: false, logs, shown, show };
}

/** The transactional producers of one embedded broker, by transactional.id, and their commit records. */
export class EmbeddedTransactions {
  private readonly producers = new Map<string, EmbeddedTransactionalProducer>();
  private nextRecord = 0;
  /** Transactions written in all their partitions but not visible yet: behind another in one of them. */
  private readonly released = new Set<CommitGate>();

  constructor(
    private readonly dir: string,
    private readonly host: TransactionHost,
  ) {}

  /** Redoes the commit records a crash left (before the logs are used); answers how many there were. */
  async recover(): Promise<number> {
    const names = await readdir(this.dir);
    const records = names.filter((name) => name.endsWith(COMMIT_SUFFIX));
    const byLog = new Map<PartitionLog, Uint8Array[]>();
    for (const name of records) {
      for (const { topic, partition, frames } of parseCommitRecord(
        join(this.dir, name),
        await readFile(join(this.dir, name)),
      )) {
        const log = this.host.partition(topic, partition);
        if (!log) {
          throw new BrokerError(
            `commit record ${join(this.dir, name)} has records for ${topic}-${partition}, which does not exist`,
            false,
          );
        }
        byLog.set(log, [...(byLog.get(log) ?? []), ...frames]);
      }
    }
    await Promise.all([...byLog].map(([log, frames]) => log.redo(frames)));
    // What was still being written when the process ended was never committed.
    for (const name of names) if (name.startsWith(".")) await rm(join(this.dir, name), { force: true });
    for (const name of records) await rm(join(this.dir, name));
    if (names.length > 0) await fsyncDir(this.dir);
    if (records.length > 0) {
      this.host.log.warn({ transactions: records.length }, "completed transactions committed before a crash");
    }
    return records.length;
  }

  /** Opens a producer for `transactionalId`, fencing the one that had it. */
  async open(transactionalId: string, options: TransactionOptions): Promise<TransactionalProducer> {
    if (typeof transactionalId !== "string" || transactionalId === "") {
      throw new BrokerError("a transactional producer needs a non-empty transactional.id", false);
    }
    const timeoutMs = options.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new BrokerError(`invalid transaction timeout ${timeoutMs} ms for ${transactionalId}`, false);
    }
    const previous = this.producers.get(transactionalId);
    const producer = new EmbeddedTransactionalProducer(transactionalId, timeoutMs, this);
    this.producers.set(transactionalId, producer);
    await previous?.end("fenced");
    return producer;
  }

  async fence(transactionalIds: string[]): Promise<void> {
    await Promise.all(
      transactionalIds.map((id) => {
        const producer = this.producers.get(id);
        this.producers.delete(id);
        return producer?.end("fenced");
      }),
    );
  }

  /** Lets commits in flight finish and aborts every open transaction (the broker is closing). */
  async closeAll(): Promise<void> {
    const producers = [...this.producers.values()];
    this.producers.clear();
    await Promise.all(producers.map((p) => p.end("closed")));
  }

  /**
   * A transaction is written in all its partitions: it becomes visible, with every written transaction
   * that nothing invisible holds back any more. Of those held back by each other only, all at once.
   */
  release(gate: CommitGate): void {
    this.released.add(gate);
    const ready = new Set(this.released);
    for (let changed = true; changed; ) {
      changed = false;
      for (const g of ready) {
        if (g.logs.some((log) => log.gatesAhead(g).some((ahead) => !ready.has(ahead as CommitGate)))) {
          ready.delete(g);
          changed = true;
        }
      }
    }
    for (const g of ready) {
      g.visible = true;
      this.released.delete(g);
    }
    for (const log of new Set([...ready].flatMap((g) => g.logs))) log.publish();
    for (const g of ready) g.show();
  }

  forget(producer: EmbeddedTransactionalProducer): void {
    if (this.producers.get(producer.transactionalId) === producer) this.producers.delete(producer.transactionalId);
  }

  place(topic: string, records: ProduceRecord[]): Promise<PlacedRecords[]> {
    return this.host.place(topic, records);
  }

  get log(): Logger {
    return this.host.log;
  }

  /** Makes the transaction's records durable in one file: the commit point. Answers the file's path. */
  async writeCommitRecord(transactionalId: string, reserved: Reserved[]): Promise<string> {
    const header = new TextEncoder().encode(
      JSON.stringify({
        transactionalId,
        partitions: reserved.map((r) => ({
          topic: r.topic,
          partition: r.partition,
          frames: r.reservation.frames.length,
        })),
      }),
    );
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, header.length);
    const path = join(this.dir, `${this.nextRecord++}${COMMIT_SUFFIX}`);
    await writeFileAtomic(path, Buffer.concat([length, header, ...reserved.flatMap((r) => r.reservation.frames)]));
    return path;
  }

  async removeCommitRecord(path: string): Promise<void> {
    // Left behind, it is only redone at the next start, which finds its records in place.
    await rm(path).catch((err: unknown) => this.host.log.warn({ err, path }, "could not remove a commit record"));
  }
}

/** The partitions and frames of a commit record; throws BrokerError when it is not whole. */
function parseCommitRecord(
  path: string,
  bytes: Uint8Array,
): { topic: string; partition: number; frames: Uint8Array[] }[] {
  const damaged = (why: string) =>
    new BrokerError(
      `commit record ${path} is damaged (${why}); it was written and synced whole, so the disk or another ` +
        "program changed it. Restore the data directory from a backup",
      false,
    );
  if (bytes.length < 4) throw damaged("too short");
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  let header: { partitions: { topic: string; partition: number; frames: number }[] };
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength)));
  } catch {
    throw damaged("unreadable header");
  }
  let at = 4 + headerLength;
  const out = header.partitions.map(({ topic, partition, frames: count }) => {
    const frames: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      const bodyLength = at + FRAME_HEADER_BYTES <= bytes.length ? bodyLengthAt(bytes, at) : undefined;
      const end = at + FRAME_HEADER_BYTES + (bodyLength ?? 0);
      if (bodyLength === undefined || end > bytes.length || !frameIsIntact(bytes, at, bodyLength)) {
        throw damaged(`record ${i} of ${topic}-${partition} is not intact`);
      }
      frames.push(bytes.subarray(at, end));
      at = end;
    }
    return { topic, partition, frames };
  });
  if (at !== bytes.length) throw damaged("trailing bytes");
  return out;
}

class EmbeddedTransactionalProducer implements TransactionalProducer {
  private reserved: Reserved[] = [];
  private state: "active" | "fenced" | "closed" = "active";
  /** Set when the broker aborted the open transaction for its age; told once, by the next produce or commit. */
  private expired = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Counts transactions, so a timer only aborts the one it was started for. */
  private generation = 0;
  /** One operation at a time: a fence waits for a commit in flight, which then completes. */
  private readonly ops = new Mutex();

  constructor(
    readonly transactionalId: string,
    private readonly timeoutMs: number,
    private readonly owner: EmbeddedTransactions,
  ) {}

  produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    return this.ops.run(async () => {
      this.ensureNotExpired();
      const placed = await this.owner.place(topic, records);
      const positions: RecordPosition[] = new Array(records.length);
      for (const group of placed) {
        let reservation: Reservation;
        try {
          reservation = group.log.reserve(group.records);
        } catch (err) {
          throw wrap(err, `produce to ${topic}-${group.partition} failed`);
        }
        this.reserved.push({ topic, partition: group.partition, log: group.log, reservation });
        group.indexes.forEach((index, i) => {
          positions[index] = { partition: group.partition, offset: reservation.offsets[i]! };
        });
      }
      if (this.timer === undefined && this.reserved.length > 0) {
        const generation = this.generation;
        this.timer = setTimeout(() => void this.expire(generation), this.timeoutMs);
        this.timer.unref?.();
      }
      return positions;
    });
  }

  commit(): Promise<void> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    return this.ops.run(async () => {
      this.ensureNotExpired();
      const reserved = this.take();
      if (reserved.length === 0) return;
      let record: string;
      try {
        record = await this.owner.writeCommitRecord(this.transactionalId, reserved);
      } catch (err) {
        for (const r of reserved.reverse()) r.reservation.abort();
        throw wrap(err, `could not commit the transaction of ${this.transactionalId}; it was aborted`);
      }
      // Readers see the transaction once it is written everywhere, in all its partitions at once.
      const gate = commitGate([...new Set(reserved.map((r) => r.log))]);
      try {
        await Promise.all(reserved.map((r) => r.reservation.commit(gate)));
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        throw new BrokerError(
          `the transaction of ${this.transactionalId} is committed but could not be written to every partition ` +
            `(${detail}); it is completed when the broker restarts`,
          false,
          err,
        );
      } finally {
        // Also after a failed write: what was written is committed, and must not hold back its partitions.
        this.owner.release(gate);
      }
      await this.owner.removeCommitRecord(record);
      // Resolved, a commit is visible (as on Kafka, where read_committed consumers then see it).
      await gate.shown;
    });
  }

  abort(): Promise<void> {
    return this.ops.run(async () => {
      this.expired = false;
      this.abortOpen();
    });
  }

  async close(): Promise<void> {
    await this.end("closed");
    this.owner.forget(this);
  }

  /** Fences or closes: a commit in flight finishes first; an open transaction is aborted. */
  end(state: "fenced" | "closed"): Promise<void> {
    if (this.state === "active") this.state = state;
    return this.ops.run(async () => this.abortOpen());
  }

  /**
   * Why a call made now is refused. Judged when called, not when its turn comes: a commit called before
   * a fence is completed, as Kafka completes an EndTxn that reached the coordinator first.
   */
  private refusal(): BrokerError | undefined {
    if (this.state === "fenced") {
      return new ProducerFencedError(
        this.transactionalId,
        `the producer with transactional.id ${this.transactionalId} was fenced: another producer with the same ` +
          "transactional.id took over",
      );
    }
    if (this.state === "closed") {
      return new BrokerError(`the transactional producer ${this.transactionalId} is closed`, false);
    }
    return undefined;
  }

  private ensureNotExpired(): void {
    if (this.expired) {
      this.expired = false;
      throw new BrokerError(
        `the transaction of ${this.transactionalId} was aborted by the broker: it was open longer than ` +
          `transaction.timeout.ms (${this.timeoutMs} ms)`,
        false,
      );
    }
  }

  private take(): Reserved[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.generation++;
    const reserved = this.reserved;
    this.reserved = [];
    return reserved;
  }

  private abortOpen(): void {
    // Last first: a partition gets back the offsets of reservations nothing was placed after.
    for (const r of this.take().reverse()) r.reservation.abort();
  }

  private expire(generation: number): Promise<void> {
    return this.ops.run(async () => {
      if (generation !== this.generation || this.reserved.length === 0) return;
      this.owner.log.warn(
        { transactionalId: this.transactionalId, timeoutMs: this.timeoutMs },
        "aborted a transaction open longer than transaction.timeout.ms",
      );
      this.abortOpen();
      this.expired = true;
    });
  }
}

function wrap(err: unknown, context: string): BrokerError {
  if (err instanceof BrokerError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new BrokerError(`${context}: ${detail}`, false, err);
}
