// The one task of the PostgreSQL connector: sets up publication and slot, takes the snapshot the
// snapshot.mode asks for, then streams. The slot's confirmed flush LSN moves only in commit(), to
// what the framework's committed offset says, so WAL the topics do not hold yet is never released
// and a crash at any point loses no change.
import type { Sql } from "postgres";
import { SchemaBuilder, Struct } from "../../connect/api/data/index.ts";
import { Slices } from "../../platform/event-loop.ts";
import { logger } from "../../platform/log.ts";
import { ConnectException, RetriableException, SourceTask } from "../../connect/api/connector.ts";
import { explained } from "./known-fixes.ts";
import { sourceRecord, type ConnectHeader, type SourceRecord } from "../../connect/api/records.ts";
import { VERSION } from "../../platform/version.ts";
import { blockingSelection, blockingSnapshotOffset } from "./blocking-snapshot.ts";
import { rowOf, type CaptureOptions } from "./captured-table.ts";
import { ensurePublication } from "./catalog.ts";
import { ChangeStream, type SignalPoint, type StreamSignals } from "./change-stream.ts";
import { IncrementalSnapshot } from "./incremental-snapshot.ts";
import type { Signal } from "./signals/signal.ts";
import { parsePostgresCdcConfig, type PostgresCdcConfig } from "./config.ts";
import { changeRecords, contextHeaders } from "./envelope.ts";
import { formatLsn, parseLsn } from "./lsn.ts";
import { INCREMENTAL_SNAPSHOT, INITIAL_SNAPSHOT, InitialSnapshotNotifier, Notifications } from "./notifications.ts";
import { readOffset, snapshotOffset, sourcePartition, type StoredOffset } from "./offsets.ts";
import { ConnectionLost, ReplicationConnection } from "./replication-connection.ts";
import {
  executeSnapshotHandler,
  logSignalHandler,
  SignalDispatcher,
  type SnapshotRequest,
} from "./signals/dispatcher.ts";
import { FileSignalChannel } from "./signals/file-channel.ts";
import { KafkaSignalChannel, openSignalTopic } from "./signals/kafka-channel.ts";
import type { SignalChannel } from "./signals/signal.ts";
import { configuredSelection, snapshotRows, type SnapshotRow, type SnapshotSelection } from "./snapshot.ts";
import { SnapshotProgress, type SnapshotListener } from "./snapshot-progress.ts";
import { SlotLag } from "./slot-lag.ts";
import { connectSql } from "./sql-connection.ts";
import { StreamingMetrics } from "./streaming-metrics.ts";
import { nowUnixMicros } from "./pg-epoch.ts";
import { TransactionMetadata } from "./transaction-metadata.ts";

const HEARTBEAT_KEY_SCHEMA = SchemaBuilder.struct()
  .name("io.debezium.connector.common.ServerNameKey")
  .version(1)
  .field("serverName", SchemaBuilder.string())
  .build();
const HEARTBEAT_VALUE_SCHEMA = SchemaBuilder.struct()
  .name("io.debezium.connector.common.Heartbeat")
  .version(1)
  .field("ts_ms", SchemaBuilder.int64())
  .build();

const log = logger("postgres-cdc");
const SLOT_BUSY_ATTEMPTS = 50;
const SLOT_BUSY_WAIT_MS = 200;
/**
 * While a blocking snapshot pauses streaming, the server hears from the task this often, also while a
 * fetch of rows takes long: the walsender ends a connection silent for wal_sender_timeout (60 s by default).
 */
const PAUSED_STATUS_INTERVAL_MS = 1000;
/** How long building a snapshot poll's records runs before the event loop gets a turn. */
const POLL_SLICE_MS = 1;

interface Snapshot {
  /** The rows a fetch at a time, and what of the last fetch polls have not taken yet. */
  readonly rows: AsyncGenerator<SnapshotRow[]>;
  fetched: SnapshotRow[];
  taken: number;
  readonly consistentPoint: bigint;
  readonly startedAt: bigint;
  readonly notifier: InitialSnapshotNotifier;
  txId: bigint;
  /** A blocking snapshot: the offset of the last record streamed before it (its records carry that position). */
  readonly blocking?: { readonly streamed: Record<string, unknown>; readonly signal: string };
}

/** The first row of the snapshot's next fetch, the rest kept for the polls to come; null at the snapshot's end. */
async function nextFetch(snapshot: Snapshot): Promise<SnapshotRow | null> {
  const fetched = await snapshot.rows.next();
  if (fetched.done) return null;
  snapshot.fetched = fetched.value;
  snapshot.taken = 1;
  return fetched.value[0]!;
}

/**
 * Runs `action` until the slot is free: after a restart the previous task's walsender may not have let
 * go of it yet (55006 object_in_use, from our replication connection or from postgres.js alike).
 */
async function whileSlotBusy<T>(action: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (err) {
      if ((err as { code?: unknown }).code !== "55006" || attempt >= SLOT_BUSY_ATTEMPTS) throw err;
      await Bun.sleep(SLOT_BUSY_WAIT_MS); // back-off until the old session ends
    }
  }
}

/** heartbeat.action.query failed (not for a lost connection): in Debezium's words, with the SQLSTATE. */
class HeartbeatActionFailed extends Error {
  constructor(cause: unknown) {
    const state = (cause as { code?: unknown } | null)?.code ?? "?";
    super(
      `Could not execute heartbeat action query (Error: ${state}): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "HeartbeatActionFailed";
  }
}

/** Drops `slot` once no walsender holds it (gone already is fine). */
export async function dropSlotWhenFree(sql: Sql, slot: string): Promise<void> {
  await whileSlotBusy(
    () => sql`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ${slot}`,
  );
}

/** SQLSTATE classes of a server going away: 08 connection exception, 57P0x shutdown / cannot connect now. */
const LOST_SQLSTATE = /^(08|57P0[1-4])/;
/** postgres.js and socket error codes of a connection that is gone or cannot be made. */
const LOST_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
]);

function isConnectionLoss(err: unknown): boolean {
  if (err instanceof ConnectionLost) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (LOST_CODES.has(code) || LOST_SQLSTATE.test(code));
}

/** Why a connector has no incremental snapshot, as Debezium's would not run one. */
const INCREMENTAL_NEEDS =
  "an incremental snapshot needs read.only=true (watermarks from pg_current_snapshot()) or signal.data.collection with the source channel in signal.enabled.channels (its watermarks are written to that table and read back from the WAL through that channel)";

/** pg_current_snapshot(), the read-only incremental snapshot's watermarks, came with PostgreSQL 13 (Debezium checks the same). */
async function requireReadOnlySnapshots(sql: Sql): Promise<void> {
  const [{ num, version }] = await sql<{ num: string; version: string }[]>`
    SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version`;
  if (Number(num) < 130000)
    throw new ConnectException(
      `read.only=true needs PostgreSQL 13 or later (pg_current_snapshot()), but the server is PostgreSQL ${version}`,
    );
}

/** PostgreSQL 17 brought failover slots: an older server would fail CREATE_REPLICATION_SLOT's FAILOVER option. */
async function requireFailoverSlots(sql: Sql): Promise<void> {
  const [{ num, version }] = await sql<{ num: string; version: string }[]>`
    SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version`;
  if (Number(num) < 170000)
    throw new ConnectException(
      `slot.failover=true needs PostgreSQL 17 or later to create a failover slot, but the server is PostgreSQL ${version}; set slot.failover=false (Debezium then creates an ordinary slot)`,
    );
}

export class PostgresCdcTask extends SourceTask {
  static readonly className = "io.debezium.connector.postgresql.PostgresConnectorTask";
  private config!: PostgresCdcConfig;
  private sql: Sql | null = null;
  private replication: ReplicationConnection | null = null;
  private snapshot: Snapshot | null = null;
  private stream: ChangeStream | null = null;
  private lastHeartbeat = Date.now();
  /** Set after losing the database: when to reconnect. */
  private reconnectAt: number | null = null;
  private reconnections = 0;
  /** Debezium's context headers of this run's change records (none with extended.headers.enabled=false). */
  private headers: readonly ConnectHeader[] = [];
  private progress!: SnapshotProgress;
  private streamingMetrics!: StreamingMetrics;
  /**
   * The incremental snapshot signals drive: with read.only (watermarks from pg_current_snapshot()), or
   * signal.data.collection with the source channel (watermarks written there and read back from the WAL).
   */
  private incremental: IncrementalSnapshot | null = null;
  /** Read-only: the idle stream's last check read a chunk and there may be more; the next poll does not wait. */
  private moreChunks = false;
  private slotLag: SlotLag | null = null;
  private signals: SignalDispatcher | null = null;
  /** Blocking snapshots asked for by signals, taken one after another between batches. */
  private readonly blockingRequests: SnapshotRequest[] = [];
  /** Status updates to the server while a blocking snapshot pauses streaming. */
  private pausedStatus: ReturnType<typeof setInterval> | null = null;
  private notifications!: Notifications;
  /** The offset of the last record handed on (at open, the stored one): what a notification record carries. */
  private position: Record<string, unknown> | null = null;
  /** What failed the snapshot, thrown by the poll after the one that handed on its notifications. */
  private snapshotFailure: unknown = null;

  version(): string {
    return VERSION;
  }

  async start(props: Record<string, string>): Promise<void> {
    this.config = parsePostgresCdcConfig(props);
    this.snapshotFailure = null;
    const { topicPrefix, taskId, extendedHeaders } = this.config;
    this.headers = extendedHeaders ? contextHeaders({ logicalName: topicPrefix, taskId, runId: uuidV7() }) : [];
    this.progress = new SnapshotProgress(
      log,
      this.config.snapshotProgressIntervalMs,
      this.context.metrics,
      topicPrefix,
    );
    this.streamingMetrics = new StreamingMetrics(this.context.metrics, topicPrefix);
    this.signals = this.signalDispatcher();
    for (const channel of this.config.unavailableNotificationChannels)
      log.warn(
        { channel },
        `notification channel ${channel} (notification.enabled.channels) is not available in Sluice; its notifications go nowhere (Sluice has the sink and log channels)`,
      );
    this.notifications = new Notifications(
      {
        channels: this.config.notificationChannels,
        sinkTopic: this.config.notificationSinkTopic,
        logicalName: topicPrefix,
      },
      { partition: sourcePartition(topicPrefix), offset: () => this.position ?? {} },
      log,
    );
    await this.open().catch((err: unknown) => {
      throw explained(err);
    });
    if (this.config.snapshotMode !== "initial_only") {
      // initial_only makes no slot to read.
      this.slotLag = new SlotLag(this.context.metrics, topicPrefix, this.config.slotName, log);
      this.slotLag.start(() => this.sql, this.config.slotLagIntervalMs);
    }
  }

  /** The kafka and file channels signal.enabled.channels names, with Debezium's signal actions. */
  private signalDispatcher(): SignalDispatcher | null {
    const { signals, topicPrefix } = this.config;
    const channels: SignalChannel[] = [];
    if (signals.channels.has("kafka")) {
      const open = this.context.openTopicReader;
      if (!open) throw new ConnectException("The kafka signal channel needs a worker's Kafka client");
      channels.push(new KafkaSignalChannel(signals.kafka, topicPrefix, openSignalTopic(signals.kafka, open), log));
    }
    if (signals.channels.has("file")) channels.push(new FileSignalChannel(signals.file, log));
    if (channels.length === 0) return null;
    return new SignalDispatcher(channels, signals.pollIntervalMs, log)
      .on(
        "log",
        logSignalHandler(log, () => this.position),
      )
      .on(
        "execute-snapshot",
        executeSnapshotHandler(log, {
          blocking: (request) => {
            this.blockingRequests.push(request);
          },
          incremental: (request) => this.incrementalSignal(request.signal),
        }),
      )
      .on("stop-snapshot", (signal) => this.incrementalSignal(signal))
      .on("pause-snapshot", (signal) => this.incrementalSignal(signal))
      .on("resume-snapshot", (signal) => this.incrementalSignal(signal));
  }

  /**
   * A snapshot signal from the kafka or file channel: the incremental snapshot acts on it as on one from
   * the signalling table (its watermarks still go through that table, as Debezium's).
   */
  private async incrementalSignal(signal: Signal): Promise<void> {
    const incremental = this.incremental;
    if (incremental === null || this.stream === null) {
      log.warn({ signal: signal.id, type: signal.type }, `${INCREMENTAL_NEEDS}; the signal is ignored`);
      return;
    }
    const offset = this.stream.position();
    const lsn = bigintOf(offset.lsn) ?? 0n;
    await incremental.signal(signal, { offset, lastCommitLsn: lsn, lsn });
  }

  /** Connects and resumes from the committed offset (at start, and again after losing the database). */
  private async open(): Promise<void> {
    const config = this.config;
    // The snapshot's readers (snapshot.max.threads) and one for the catalog and the rest.
    const sql = (this.sql = await connectSql(config, config.snapshotMaxThreads + 1));
    const storedOffset = this.context.offsetStorageReader.offset(sourcePartition(config.topicPrefix));
    this.position = storedOffset;
    const stored = readOffset(storedOffset);
    this.incremental = config.readOnly || this.sourceSignals() ? this.newIncrementalSnapshot(storedOffset) : null;
    if (config.readOnly) await requireReadOnlySnapshots(sql);
    if (config.snapshotMode === "initial_only") {
      // As Debezium's: what will not stream needs neither publication nor slot (one nobody reads would
      // hold the WAL forever). The snapshot is a transaction of its own, at the current WAL position.
      if (this.needsSnapshot(stored)) {
        const [{ lsn }] = await sql<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
        this.snapshot = this.startSnapshot(null, parseLsn(lsn));
      } else this.notifications.emit(INITIAL_SNAPSHOT, "SKIPPED");
      return;
    }
    await ensurePublication(
      sql,
      config.publicationName,
      config.publicationAutocreate,
      config.filters,
      config.publishedOperations,
      config.signalTable ? [config.signalTable] : [],
    );
    const replication = (this.replication = await ReplicationConnection.open({
      host: config.hostname,
      port: config.port,
      user: config.user,
      password: config.password,
      database: config.database,
      tls: config.tls,
    }));
    const [slot] = await sql<
      { confirmed_flush_lsn: string | null }[]
    >`SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = ${config.slotName}`;
    if (config.slotFailover && !slot) await requireFailoverSlots(sql);
    if (config.readOnly && !slot)
      log.warn(
        { slot: config.slotName },
        "the connector is configured to be read-only (read.only=true) but its replication slot does not exist; creating it may fail",
      );
    if (this.needsSnapshot(stored)) {
      // Only a slot created now exports a snapshot that lines up with its start; an old one has to go.
      if (slot) await whileSlotBusy(() => sql`SELECT pg_drop_replication_slot(${config.slotName})`);
      const created = await replication.createSlot(config.slotName, true, config.slotFailover);
      this.snapshot = this.startSnapshot(created.snapshotName!, created.consistentPoint);
      return;
    }
    // As Debezium's, when an offset says the snapshot is done, and when snapshot.mode takes none (no_data, never).
    this.notifications.emit(INITIAL_SNAPSHOT, "SKIPPED");
    if (!slot) {
      const created = await replication.createSlot(config.slotName, false, config.slotFailover);
      await this.startStreaming(created.consistentPoint, null, null);
    } else {
      // 0/0 lets the server start at the slot's confirmed flush LSN.
      await this.startStreaming(stored?.resumeLsn ?? 0n, stored?.lastChange ?? null, stored?.lastCommitLsn ?? null);
    }
  }

  /**
   * As Debezium's task: losing the database closes everything and throws a RetriableException (the
   * worker logs it and polls again); after retriable.restart.connector.wait.ms the task reconnects and
   * resumes from the committed offset, so the records not yet committed come again (never fewer).
   * errors.max.retries reconnections in a row without a successful poll fail the task.
   */
  async poll(): Promise<SourceRecord[] | null> {
    try {
      if (this.reconnectAt !== null) {
        const wait = this.reconnectAt - Date.now();
        if (wait > 0) {
          await Bun.sleep(Math.min(wait, this.config.pollIntervalMs)); // the reconnect back-off, in slices so stop() is heard
          return null;
        }
        await this.open();
        this.reconnectAt = null;
        log.info({ attempt: this.reconnections }, "reconnected to PostgreSQL; resuming from the committed offset");
      }
      const records = await this.pollOpen();
      this.reconnections = 0;
      return records;
    } catch (err) {
      const actionFailed = err instanceof HeartbeatActionFailed;
      if (!actionFailed && !isConnectionLoss(err)) throw explained(err);
      await this.close();
      this.reconnections++;
      const { maxRetries, restartWaitMs } = this.config;
      const message = err instanceof Error ? err.message : String(err);
      if (maxRetries >= 0 && this.reconnections > maxRetries)
        throw new ConnectException(
          actionFailed
            ? `${message}; gave up after ${maxRetries} reconnection attempt(s) (errors.max.retries)`
            : `Lost the connection to PostgreSQL and gave up after ${maxRetries} reconnection attempt(s) (errors.max.retries): ${message}`,
          err,
        );
      this.reconnectAt = Date.now() + restartWaitMs;
      throw new RetriableException(
        `${actionFailed ? message : `Lost the connection to PostgreSQL (${message})`}; reconnecting in ${restartWaitMs} ms`,
        err,
      );
    }
  }

  private async pollOpen(): Promise<SourceRecord[] | null> {
    const failure = this.snapshotFailure;
    if (failure !== null) throw failure;
    if (this.snapshot) return this.pollSnapshot(this.snapshot);
    if (this.stream === null || this.replication === null) {
      await Bun.sleep(this.config.pollIntervalMs); // initial_only after its snapshot: nothing left to do
      return null;
    }
    await this.signals?.poll();
    const request = this.blockingRequests.shift();
    if (request) {
      this.snapshot = this.startBlockingSnapshot(request, this.stream);
      return this.pollSnapshot(this.snapshot);
    }
    const records: SourceRecord[] = [];
    const stream = this.stream;
    const deadline = Date.now() + this.config.pollIntervalMs;
    while (records.length < this.config.maxBatchSize) {
      // Once there are records, take only what has already arrived: hand them on without waiting.
      const wait = records.length > 0 ? 0 : deadline - Date.now();
      const message = await this.replication.receive(this.moreChunks ? 0 : wait, (walEnd) => stream.keepalive(walEnd));
      if (message === null) break;
      this.handOn(records, await stream.records(message));
    }
    this.handOn(records, []);
    this.moreChunks = false;
    if (!stream.inTransaction && this.incremental?.readOnlyWatermarks && records.length < this.config.maxBatchSize) {
      // As Debezium's read-only snapshot when no message is pending: the stream may have caught up with the chunk.
      const at = stream.position();
      const lsn = bigintOf(at.lsn) ?? 0n;
      const { records: read, more } = await this.incremental.caughtUp(
        bigintOf(at.txId),
        { offset: at, lastCommitLsn: lsn, lsn },
        this.config.maxBatchSize - records.length,
      );
      this.handOn(records, read);
      this.moreChunks = more;
    }
    // As Debezium's, also after a busy batch, but only between transactions: a heartbeat inside one
    // would point before its changes.
    const heartbeat = stream.inTransaction ? null : await this.heartbeat(stream);
    if (heartbeat) this.handOn(records, [heartbeat]);
    return records.length > 0 ? records : null;
  }

  /** After the framework committed offsets: the slot may release WAL up to the committed position. */
  override commit(): void {
    const stored = readOffset(this.context.offsetStorageReader.offset(sourcePartition(this.config.topicPrefix)));
    if (stored === null || stored.snapshotIncomplete) return;
    this.replication?.confirmFlushed(stored.resumeLsn);
  }

  async stop(): Promise<void> {
    this.slotLag?.stop();
    await this.signals?.close();
    this.signals = null;
    const sql = this.config?.slotDropOnStop ? this.sql : null;
    if (sql !== null) {
      this.replication?.close();
      this.replication = null;
      const slot = this.config.slotName;
      // Once our walsender has let go of the slot (slot.drop.on.stop).
      await dropSlotWhenFree(sql, slot).catch((err: unknown) =>
        log.warn(
          { slot, err: err instanceof Error ? err.message : String(err) },
          "could not drop the replication slot (slot.drop.on.stop)",
        ),
      );
    }
    await this.close();
  }

  /**
   * Adds `produced` to the batch after the notifications emitted since the last call (they happened
   * before it, and carry the offset of the record before them), and moves the position on.
   */
  private handOn(batch: SourceRecord[], produced: readonly SourceRecord[]): void {
    batch.push(...this.notifications.drain(), ...produced);
    const last = produced.at(-1);
    if (last !== undefined) this.position = last.sourceOffset as Record<string, unknown>;
  }

  private async close(): Promise<void> {
    this.snapshot?.notifier.aborted(); // stopped or lost before its end
    this.stream = null;
    this.resumeStreaming();
    this.replication?.close();
    this.replication = null;
    await this.snapshot?.rows.return(undefined);
    this.snapshot = null;
    const sql = this.sql;
    this.sql = null;
    await sql?.end({ timeout: 5 }).catch(() => {}); // a lost server cannot be told goodbye
  }

  private needsSnapshot(stored: StoredOffset | null): boolean {
    switch (this.config.snapshotMode) {
      case "always":
        return true;
      case "initial":
      case "initial_only":
        return stored === null || stored.snapshotIncomplete;
      case "never":
      case "no_data":
        return false;
    }
  }

  /** `snapshotName`: the slot's exported snapshot the rows are read in (null: a snapshot of its own). */
  private startSnapshot(snapshotName: string | null, consistentPoint: bigint, selection?: SnapshotSelection): Snapshot {
    const notifier = new InitialSnapshotNotifier(this.notifications);
    notifier.started();
    return {
      rows: snapshotRows(
        this.sql!,
        snapshotName,
        this.captureOptions(),
        { fetchSize: this.config.snapshotFetchSize, threads: this.config.snapshotMaxThreads },
        // A blocking snapshot's records carry the last streamed change's txId, as Debezium's do.
        ({ txId }) => {
          if (!this.snapshot!.blocking) this.snapshot!.txId = txId;
        },
        bothListeners(this.progress, notifier),
        selection ?? configuredSelection(this.config.snapshotInclude, this.config.snapshotOverrides),
      ),
      fetched: [],
      taken: 0,
      consistentPoint,
      startedAt: nowUnixMicros(),
      notifier,
      txId: 0n,
    };
  }

  private captureOptions(): CaptureOptions {
    const { topicPrefix, filters, decimalHandlingMode, moneyFractionDigits, timePrecisionMode, columnRules } =
      this.config;
    return { topicPrefix, filters, decimalHandlingMode, moneyFractionDigits, timePrecisionMode, columnRules };
  }

  /** `lastCommitLsn`: the stored offset's lsn_commit (null after a snapshot), where events' `sequence` starts. */
  private async startStreaming(
    from: bigint,
    lastChange: StoredOffset["lastChange"],
    lastCommitLsn: bigint | null,
  ): Promise<void> {
    const { config } = this;
    const metrics = this.streamingMetrics;
    const options = {
      ...this.captureOptions(),
      version: VERSION,
      database: config.database,
      tombstonesOnDelete: config.tombstonesOnDelete,
      skippedOperations: config.skippedOperations,
      headers: this.headers,
      onEvent: (commitTime: bigint) => metrics.event(commitTime),
      signals: this.streamSignals(),
      transactions:
        config.transactionTopic === null
          ? null
          : // Resumes the transaction the stored offset was in the middle of (this.position: it, or a snapshot's).
            new TransactionMetadata(config.transactionTopic, sourcePartition(config.topicPrefix), this.position),
    };
    this.stream = new ChangeStream(this.sql!, options, from, lastChange, lastCommitLsn);
    await whileSlotBusy(() => this.replication!.startReplication(config.slotName, from, config.publicationName));
    const at = from === 0n ? "its confirmed flush LSN" : formatLsn(from);
    log.info(
      { slot: config.slotName, lsn: from === 0n ? null : formatLsn(from) },
      `streaming started from slot ${config.slotName} at ${at}`,
    );
    // As Debezium's: an incremental snapshot the offsets say is under way goes on with its next chunk.
    await this.incremental?.resume();
  }

  /** signal.data.collection with the source channel (Debezium's default) enabled: signals read from the WAL. */
  private sourceSignals(): boolean {
    return this.config.signalTable !== null && this.config.signals.channels.has("source");
  }

  private newIncrementalSnapshot(storedOffset: Record<string, unknown> | null): IncrementalSnapshot {
    const { config } = this;
    const incremental = new IncrementalSnapshot({
      sql: () => this.sql!,
      capture: this.captureOptions(),
      signalTable: config.readOnly ? null : config.signalTable!,
      chunkSize: config.incrementalChunkSize,
      version: VERSION,
      database: config.database,
      headers: this.headers,
      // Debezium's "Incremental Snapshot" notifications, with the signal's id; the channel adds connector_name.
      notify: (type, { connector_name: _, ...data }, id) =>
        this.notifications.emit(INCREMENTAL_SNAPSHOT, type, data, id ?? undefined),
    });
    incremental.restore(storedOffset);
    return incremental;
  }

  private streamSignals(): StreamSignals | null {
    const incremental = this.incremental;
    if (incremental === null) return null;
    return {
      table: this.sourceSignals() ? this.config.signalTable : null,
      signal: (signal, at) => this.onSignal(incremental, signal, at),
      changed: (table, keys, xid, at) => incremental.changed(table, keys, xid, at),
      committed: async (xid, at) =>
        incremental.readOnlyWatermarks ? (await incremental.caughtUp(xid, at, this.config.maxBatchSize)).records : [],
      offsetFields: () => incremental.offsetFields(),
    };
  }

  private async onSignal(incremental: IncrementalSnapshot, signal: Signal, at: SignalPoint): Promise<SourceRecord[]> {
    log.debug({ id: signal.id, type: signal.type, channel: signal.channel }, "signal received");
    if (signal.type === "log") {
      // As Debezium's log action: the offset where the signal was found.
      await logSignalHandler(log, () => ({ ...at.offset, ...incremental.offsetFields() }))(signal);
      return [];
    }
    return incremental.signal(signal, at);
  }

  /**
   * Pauses streaming for a blocking snapshot of the tables `request` names: the replication stream is
   * not read until it is over (what arrives meanwhile waits in the socket and the slot), so streaming
   * resumes at the very change it stopped before.
   */
  private startBlockingSnapshot(request: SnapshotRequest, stream: ChangeStream): Snapshot {
    const overrides = this.config.snapshotOverrides;
    const selection = blockingSelection(request, (name) => overrides.get(`${name.schema}.${name.table}`));
    const streamed = this.position ?? stream.position();
    log.info(
      { signal: request.signal.id, dataCollections: request.dataCollections },
      "Starting blocking snapshot; streaming is paused",
    );
    this.pausedStatus = setInterval(() => this.replication?.reportStatus(), PAUSED_STATUS_INTERVAL_MS);
    const lsn = bigintOf(streamed.lsn) ?? 0n;
    return {
      ...this.startSnapshot(null, lsn, selection),
      txId: bigintOf(streamed.txId) ?? 0n,
      blocking: { streamed, signal: request.signal.id },
    };
  }

  /** Ends a blocking snapshot's pause (its status updates). */
  private resumeStreaming(): void {
    if (this.pausedStatus !== null) clearInterval(this.pausedStatus);
    this.pausedStatus = null;
  }

  private async pollSnapshot(snapshot: Snapshot): Promise<SourceRecord[] | null> {
    const records: SourceRecord[] = [];
    const blocking = snapshot.blocking;
    if (blocking) await this.signals?.poll(); // a blocking snapshot asked for meanwhile waits for this one to end
    const slices = new Slices(POLL_SLICE_MS);
    while (records.length < this.config.maxBatchSize) {
      // Building a poll's records takes milliseconds: the worker's writes of earlier polls get their
      // acknowledgements taken (and their next produce sent) in between, not after.
      if (slices.due) await slices.pause();
      let row: SnapshotRow | null;
      try {
        row =
          snapshot.taken < snapshot.fetched.length ? snapshot.fetched[snapshot.taken++]! : await nextFetch(snapshot);
      } catch (err) {
        snapshot.notifier.aborted();
        // The sink channel's TABLE_SCAN_COMPLETED (SQL_EXCEPTION) and ABORTED go out before the task fails.
        this.handOn(records, []);
        if (isConnectionLoss(err) || records.length === 0) throw err;
        this.snapshotFailure = err;
        return records;
      }
      if (row === null) {
        this.handOn(records, []);
        this.snapshot = null;
        this.resumeStreaming();
        if (blocking)
          log.info({ signal: blocking.signal }, "Blocking snapshot completed; streaming resumes where it stopped");
        else if (this.config.snapshotMode !== "initial_only")
          await this.startStreaming(snapshot.consistentPoint, null, null);
        break;
      }
      const { table, tuple, marker } = row;
      const offset = blocking
        ? blockingSnapshotOffset(blocking.streamed, marker === "last")
        : snapshotOffset(snapshot.consistentPoint, snapshot.txId, snapshot.startedAt, marker === "last");
      const source = {
        version: VERSION,
        name: this.config.topicPrefix,
        db: this.config.database,
        schema: table.schema,
        table: table.table,
        timestamp: snapshot.startedAt,
        snapshot: marker,
        lastCommitLsn: blocking ? bigintOf(blocking.streamed.lsn_commit) : null,
        lsn: snapshot.consistentPoint,
        txId: snapshot.txId,
      };
      const event = {
        op: "r" as const,
        before: null,
        after: rowOf(table, tuple),
        source,
        processedAt: nowUnixMicros(),
      };
      this.handOn(
        records,
        changeRecords(table.schemas, event, {
          sourcePartition: sourcePartition(this.config.topicPrefix),
          sourceOffset: offset,
          tombstonesOnDelete: false,
          headers: this.headers,
        }),
      );
    }
    return records.length > 0 ? records : null;
  }

  /**
   * Debezium's heartbeat, while streaming: on quiet tables it still carries the position forward, so the
   * slot can advance. heartbeat.action.query runs first: its change (to a table in the publication) is
   * WAL of this database that the slot streams, so the position moves on even when the server's WAL
   * grows only from other databases. A failing query is retried as a lost connection is (Debezium's
   * PostgreSQL connector treats every SQL error but authentication as retriable).
   */
  private async heartbeat(stream: ChangeStream): Promise<SourceRecord | null> {
    const { heartbeatIntervalMs: interval, heartbeatActionQuery: query } = this.config;
    if (interval <= 0 || Date.now() - this.lastHeartbeat < interval) return null;
    this.lastHeartbeat = Date.now();
    if (query !== null && this.sql !== null)
      await this.sql.unsafe(query).catch((err: unknown) => {
        if (isConnectionLoss(err)) throw err;
        throw new HeartbeatActionFailed(err);
      });
    const prefix = this.config.topicPrefix;
    return sourceRecord({
      sourcePartition: sourcePartition(prefix),
      sourceOffset: stream.position(),
      topic: this.config.heartbeatTopic,
      keySchema: HEARTBEAT_KEY_SCHEMA,
      key: new Struct(HEARTBEAT_KEY_SCHEMA).put("serverName", prefix),
      valueSchema: HEARTBEAT_VALUE_SCHEMA,
      value: new Struct(HEARTBEAT_VALUE_SCHEMA).put("ts_ms", BigInt(Date.now())),
    });
  }
}

/** Tells each listener what the snapshot does. */
function bothListeners(a: SnapshotListener, b: SnapshotListener): SnapshotListener {
  return {
    tables: (tables) => (a.tables(tables), b.tables(tables)),
    tableStarted: (table) => (a.tableStarted(table), b.tableStarted(table)),
    row: (table) => (a.row(table), b.row(table)),
    tableDone: (table) => (a.tableDone(table), b.tableDone(table)),
    done: () => (a.done(), b.done()),
  };
}

/** A random UUID of version 7 (its first 48 bits the Unix time in ms), as Debezium makes its run ids. */
function uuidV7(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = Date.now();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function bigintOf(value: unknown): bigint | null {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return null;
}
