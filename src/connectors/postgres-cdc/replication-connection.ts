// A PostgreSQL connection in replication mode (`replication=database`), speaking just enough of the
// frontend/backend protocol for logical decoding: start-up and authentication (trust, cleartext, md5,
// SCRAM-SHA-256), simple queries for the replication commands, and the CopyBoth stream that carries
// XLogData and keepalives. Ordinary SQL goes through the `postgres` library instead; that library
// cannot open a replication connection, which is why this one exists.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import type { Socket } from "node:net";
import { PLAIN_POSTGRES, withPostgresTls, type PostgresTls } from "../../platform/postgres-tls.ts";
import { formatLsn, parseLsn } from "./lsn.ts";
import { decodeReplicationMessage, encodeStandbyStatusUpdate, type XLogData } from "./replication-stream.ts";
import { ProtocolError, WireReader } from "./wire-reader.ts";
import { nowUnixMicros } from "./pg-epoch.ts";

export interface ReplicationConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** TLS as database.sslmode asks; without it the connection is plain text. */
  readonly tls?: PostgresTls;
}

/** An ErrorResponse from the server, with its SQLSTATE. */
export class PostgresError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "PostgresError";
  }
}

/** The server closed the connection (or it broke) while it was in use. */
export class ConnectionLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionLost";
  }
}

interface BackendMessage {
  readonly kind: string;
  readonly body: Uint8Array;
}

export interface QueryResult {
  readonly columns: readonly string[];
  /** Text values; null for SQL NULL. */
  readonly rows: readonly (string | null)[][];
}

export interface CreatedSlot {
  readonly consistentPoint: bigint;
  /** The exported snapshot, valid until the next command on this connection. */
  readonly snapshotName: string | null;
}

/** Received messages held before the socket is paused, so a slow consumer bounds the memory used. */
const HIGH_WATER_MESSAGES = 10_000;
const encoder = new TextEncoder();

export class ReplicationConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly queue: BackendMessage[] = [];
  private waiter: (() => void) | null = null;
  private failure: Error | null = null;
  private streaming = false;
  /** What the slot may release: only ever what the caller reported as durably handed on. */
  private flushed = 0n;
  private received = 0n;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err) => this.fail(err));
    socket.on("close", () => this.fail(new ConnectionLost("PostgreSQL closed the replication connection")));
  }

  static async open(options: ReplicationConnectionOptions): Promise<ReplicationConnection> {
    const start = async (open: () => Promise<Socket>) => {
      const connection = new ReplicationConnection(await open());
      try {
        await connection.startup(options);
      } catch (err) {
        connection.close();
        throw err;
      }
      return connection;
    };
    return withPostgresTls(options.host, options.port, options.tls ?? PLAIN_POSTGRES, start);
  }

  /** IDENTIFY_SYSTEM: the server's current WAL position (xlogpos). */
  async identifySystem(): Promise<{
    systemId: string;
    timeline: number;
    walPosition: bigint;
    database: string | null;
  }> {
    const row = (await this.query("IDENTIFY_SYSTEM")).rows[0];
    if (!row) throw new ProtocolError("IDENTIFY_SYSTEM returned no row");
    return { systemId: row[0]!, timeline: Number(row[1]), walPosition: parseLsn(row[2]!), database: row[3] ?? null };
  }

  /**
   * A pgoutput slot. With `exportSnapshot` the server exports a snapshot that sees exactly the data
   * before the slot's consistent point, so a snapshot read in it joins the stream without gap or overlap.
   * `failover`: a failover slot, synchronized to standbys (PostgreSQL 17+).
   */
  async createSlot(slot: string, exportSnapshot: boolean, failover = false): Promise<CreatedSlot> {
    // FAILOVER (PostgreSQL 17+) exists only in the parenthesized option list (PostgreSQL 15+).
    const options = failover
      ? `(SNAPSHOT '${exportSnapshot ? "export" : "nothing"}', FAILOVER)`
      : exportSnapshot
        ? "EXPORT_SNAPSHOT"
        : "NOEXPORT_SNAPSHOT";
    const row = (await this.query(`CREATE_REPLICATION_SLOT ${quoteIdentifier(slot)} LOGICAL pgoutput ${options}`))
      .rows[0];
    if (!row) throw new ProtocolError("CREATE_REPLICATION_SLOT returned no row");
    return { consistentPoint: parseLsn(row[1]!), snapshotName: row[2] ?? null };
  }

  /** Enters CopyBoth mode; messages then arrive through receive(). */
  async startReplication(slot: string, from: bigint, publication: string): Promise<void> {
    this.flushed = from;
    this.received = from;
    this.send(
      "Q",
      cstring(
        `START_REPLICATION SLOT ${quoteIdentifier(slot)} LOGICAL ${formatLsn(from)} (proto_version '1', publication_names '${publication.replaceAll("'", "''")}')`,
      ),
    );
    for (;;) {
      const message = await this.next();
      if (message.kind === "W") break;
      if (message.kind === "E") {
        await this.untilReady();
        throw errorOf(message.body);
      }
      this.expectAsync(message);
    }
    this.streaming = true;
  }

  /**
   * The next XLogData, or null when none arrives within `timeoutMs`. Keepalives that ask for an
   * answer are answered here, so the server does not time the connection out while the caller is busy.
   * `onKeepalive` hears every keepalive's WAL end (the server has sent everything before it).
   */
  async receive(timeoutMs: number, onKeepalive?: (walEnd: bigint) => void): Promise<XLogData | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = await this.next(deadline - Date.now());
      if (message === null) return null;
      if (message.kind === "d") {
        const replication = decodeReplicationMessage(message.body);
        if (replication.type === "xlogdata") {
          if (replication.walEnd > this.received) this.received = replication.walEnd;
          return replication;
        }
        onKeepalive?.(replication.walEnd);
        if (replication.replyRequested) this.sendStatus(false);
        continue;
      }
      if (message.kind === "E") throw errorOf(message.body);
      if (message.kind === "c") throw new ProtocolError("The server ended the replication stream");
      this.expectAsync(message);
    }
  }

  /** Tells the slot everything before `lsn` is durably handed on: the server may recycle that WAL. */
  confirmFlushed(lsn: bigint): void {
    if (lsn <= this.flushed) return;
    this.flushed = lsn;
    if (this.streaming && this.failure === null) this.sendStatus(false);
  }

  /**
   * Tells the server where the client stands without reading anything: while streaming is paused (a
   * blocking snapshot), this keeps wal_sender_timeout from ending the connection.
   */
  reportStatus(): void {
    if (this.streaming && this.failure === null) this.sendStatus(false);
  }

  close(): void {
    if (!this.socket.destroyed && this.failure === null) this.send("X", new Uint8Array(0));
    this.failure ??= new Error("Replication connection closed");
    this.socket.destroy();
    this.wake();
  }

  /** A simple query outside of streaming: its rows as text. */
  async query(sql: string): Promise<QueryResult> {
    this.send("Q", cstring(sql));
    let columns: string[] = [];
    const rows: (string | null)[][] = [];
    let error: Error | null = null;
    for (;;) {
      const message = await this.next();
      const reader = new WireReader(message.body);
      switch (message.kind) {
        case "T": {
          const count = reader.int16();
          columns = [];
          for (let i = 0; i < count; i++) {
            columns.push(reader.cstring());
            reader.bytesOf(18); // table oid, column number, type oid, type size, modifier, format
          }
          break;
        }
        case "D": {
          const count = reader.int16();
          const row: (string | null)[] = [];
          for (let i = 0; i < count; i++) {
            const length = reader.int32();
            row.push(length < 0 ? null : reader.decode(reader.bytesOf(length)));
          }
          rows.push(row);
          break;
        }
        case "C":
        case "I":
          break;
        case "E":
          error = errorOf(message.body);
          break;
        case "Z":
          if (error) throw error;
          return { columns, rows };
        default:
          this.expectAsync(message);
      }
    }
  }

  private sendStatus(replyRequested: boolean): void {
    // biome-ignore lint/complexity/useMathMinMax: LSNs are bigints, which Math.max does not take.
    const written = this.received > this.flushed ? this.received : this.flushed;
    this.send(
      "d",
      encodeStandbyStatusUpdate({
        written,
        flushed: this.flushed,
        applied: this.flushed,
        clock: nowUnixMicros(),
        replyRequested,
      }),
    );
  }

  private async startup(options: ReplicationConnectionOptions): Promise<void> {
    const parameters = {
      user: options.user,
      database: options.database,
      replication: "database",
      client_encoding: "UTF8",
      application_name: "sluice-postgres-cdc",
    };
    const body = Buffer.concat([
      int32(196608),
      ...Object.entries(parameters).flatMap(([k, v]) => [cstring(k), cstring(v)]),
      new Uint8Array([0]),
    ]);
    this.socket.write(Buffer.concat([int32(body.length + 4), body]));
    for (;;) {
      const message = await this.next();
      if (message.kind === "E") throw errorOf(message.body);
      if (message.kind === "R") await this.authenticate(new WireReader(message.body), options);
      else if (message.kind === "Z") return;
      else this.expectAsync(message);
    }
  }

  private async authenticate(reader: WireReader, options: ReplicationConnectionOptions): Promise<void> {
    const method = reader.int32();
    switch (method) {
      case 0: // AuthenticationOk
        return;
      case 3: // cleartext
        this.send("p", cstring(options.password));
        return;
      case 5: {
        const salt = reader.bytesOf(4);
        const inner = createHash("md5")
          .update(options.password + options.user)
          .digest("hex");
        this.send("p", cstring("md5" + createHash("md5").update(inner).update(salt).digest("hex")));
        return;
      }
      case 10: {
        const mechanisms: string[] = [];
        for (let m = reader.cstring(); m !== ""; m = reader.cstring()) mechanisms.push(m);
        if (!mechanisms.includes("SCRAM-SHA-256"))
          throw new ProtocolError(`No supported SASL mechanism among ${mechanisms.join(", ")}`);
        await this.scramSha256(options.password);
        return;
      }
      default:
        throw new ProtocolError(
          `Unsupported authentication method ${method} (supported: trust, password, md5, SCRAM-SHA-256)`,
        );
    }
  }

  /** RFC 5802/7677 as PostgreSQL runs it: the user name is taken from the start-up message, so it is left empty here. */
  private async scramSha256(password: string): Promise<void> {
    const clientNonce = randomBytes(18).toString("base64");
    const clientFirstBare = `n=,r=${clientNonce}`;
    const first = Buffer.from(`n,,${clientFirstBare}`);
    this.send("p", Buffer.concat([cstring("SCRAM-SHA-256"), int32(first.length), first]));
    const serverFirst = await this.saslMessage(11);
    const attributes = new Map(serverFirst.split(",").map((part) => [part[0], part.slice(2)]));
    const nonce = attributes.get("r") ?? "";
    const salt = Buffer.from(attributes.get("s") ?? "", "base64");
    const iterations = Number(attributes.get("i"));
    if (!nonce.startsWith(clientNonce) || salt.length === 0 || !(iterations > 0))
      throw new ProtocolError("Invalid SCRAM server-first message");
    const saltedPassword = pbkdf2Sync(password.normalize("NFKC"), salt, iterations, 32, "sha256");
    const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
    const clientKey = hmac(saltedPassword, "Client Key");
    const storedKey = createHash("sha256").update(clientKey).digest();
    const clientFinalWithoutProof = `c=biws,r=${nonce}`;
    const authMessage = `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;
    const signature = hmac(storedKey, authMessage);
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!)).toString("base64");
    this.send("p", Buffer.from(`${clientFinalWithoutProof},p=${proof}`));
    const serverFinal = await this.saslMessage(12);
    const expected = hmac(hmac(saltedPassword, "Server Key"), authMessage);
    const verifier = Buffer.from(serverFinal.startsWith("v=") ? serverFinal.slice(2) : "", "base64");
    // The server proves it knows the password too: otherwise anyone could impersonate it.
    if (verifier.length !== expected.length || !timingSafeEqual(verifier, expected))
      throw new ProtocolError("SCRAM server signature does not match");
  }

  private async saslMessage(expected: number): Promise<string> {
    const message = await this.next();
    if (message.kind === "E") throw errorOf(message.body);
    const reader = new WireReader(message.body);
    if (message.kind !== "R" || reader.int32() !== expected) throw new ProtocolError(`Expected SASL step ${expected}`);
    return Buffer.from(reader.rest()).toString("utf8");
  }

  /** Skips what the server may send at any time; anything else is a protocol error. */
  private expectAsync(message: BackendMessage): void {
    // ParameterStatus, BackendKeyData, NoticeResponse, NotificationResponse
    if ("SKNA".includes(message.kind)) return;
    throw new ProtocolError(`Unexpected message '${message.kind}' from the server`);
  }

  private async untilReady(): Promise<void> {
    for (let message = await this.next(); message.kind !== "Z"; message = await this.next());
  }

  private next(): Promise<BackendMessage>;
  private next(timeoutMs: number): Promise<BackendMessage | null>;
  private async next(timeoutMs?: number): Promise<BackendMessage | null> {
    for (;;) {
      const message = this.queue.shift();
      if (message) {
        if (this.queue.length < HIGH_WATER_MESSAGES / 2 && this.socket.isPaused()) this.socket.resume();
        return message;
      }
      if (this.failure) throw this.failure;
      if (timeoutMs !== undefined && timeoutMs <= 0) return null;
      let timer: Timer | undefined;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        if (timeoutMs !== undefined) timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      this.waiter = null;
      if (timeoutMs !== undefined && this.queue.length === 0 && this.failure === null) return null;
    }
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let offset = 0;
    while (this.buffer.length - offset >= 5) {
      const length = this.buffer.readInt32BE(offset + 1);
      if (this.buffer.length - offset < length + 1) break;
      this.queue.push({
        kind: String.fromCharCode(this.buffer[offset]!),
        body: this.buffer.subarray(offset + 5, offset + 1 + length),
      });
      offset += length + 1;
    }
    this.buffer = this.buffer.subarray(offset);
    if (this.queue.length >= HIGH_WATER_MESSAGES) this.socket.pause();
    this.wake();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.wake();
  }

  private wake(): void {
    this.waiter?.();
  }

  private send(kind: string, body: Uint8Array): void {
    const header = Buffer.alloc(5);
    header.write(kind, 0, "latin1");
    header.writeInt32BE(body.length + 4, 1);
    this.socket.write(Buffer.concat([header, body]));
  }
}

function cstring(text: string): Uint8Array {
  return Buffer.concat([encoder.encode(text), new Uint8Array([0])]);
}

function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function errorOf(body: Uint8Array): PostgresError {
  const reader = new WireReader(body);
  const fields = new Map<string, string>();
  for (let type = reader.char(); type !== "\0"; type = reader.char()) fields.set(type, reader.cstring());
  return new PostgresError(
    `${fields.get("S") ?? "ERROR"}: ${fields.get("M") ?? "unknown error"}`,
    fields.get("C") ?? "",
  );
}
