// The two native clients behind one small interface: column lookup, DDL, and a transaction in which
// statements run with bound parameters (server-side prepared statements on both databases).
import mysql from "mysql2/promise";
import postgres from "postgres";
import { PLAIN_POSTGRES, withPostgresLibrary } from "../../platform/postgres-tls.ts";
import { handshakeFailure } from "../../platform/server-certificate.ts";
import { PLAIN_MYSQL, type MySqlTls } from "./connection-tls.ts";
import type { ConnectionTarget } from "./connection-url.ts";
import { copyIn } from "./postgres-copy.ts";
import type { SqlParam } from "./sql-values.ts";
import type { TableId } from "./statements.ts";

export interface SqlSession {
  execute(sql: string, params: SqlParam[]): Promise<void>;
  /** PostgreSQL only: `COPY … FROM STDIN` with `data` in COPY's text format. */
  copyFrom?(statement: string, data: string): Promise<void>;
}

export interface Database {
  /** Column names of the table as stored, or null when there is no such table. */
  columns(table: TableId): Promise<Set<string> | null>;
  ddl(statement: string): Promise<void>;
  /** The largest statement the server accepts in bytes (MySQL's max_allowed_packet), or null for no limit that matters. */
  maxStatementBytes(): Promise<number | null>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction(work: (session: SqlSession) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface Credentials {
  user: string | undefined;
  password: string | undefined;
}

/** `timeZone`: db.timezone, the zone of the wall-clock text written for temporal values. */
export function openDatabase(target: ConnectionTarget, credentials: Credentials, timeZone: string): Database {
  return target.dialect === "postgresql"
    ? new PostgresDatabase(target, credentials, timeZone)
    : new MySqlDatabase(target, credentials);
}

class PostgresDatabase implements Database {
  /** The pool once its first login worked: the URL's sslmode may try TLS and plain text in turn. */
  private readonly sql: Promise<postgres.Sql>;

  constructor(target: ConnectionTarget, credentials: Credentials, timeZone: string) {
    this.sql = withPostgresLibrary(target.host, target.port, target.postgresTls ?? PLAIN_POSTGRES, async (ssl) => {
      const sql = postgres({
        host: target.host,
        port: target.port,
        database: target.database || undefined,
        username: credentials.user,
        password: credentials.password,
        ssl,
        // One connection: a task writes one transaction at a time.
        max: 1,
        onnotice: () => {},
        // Timestamps are written as wall-clock text in db.timezone; TIMESTAMPTZ columns read them in it too.
        connection: { TimeZone: timeZone },
      });
      try {
        await sql`SELECT 1`;
        return sql;
      } catch (err) {
        await sql.end({ timeout: 1 }).catch(() => {});
        throw err;
      }
    });
    this.sql.catch(() => {}); // the first use reports it
  }

  async columns(table: TableId): Promise<Set<string> | null> {
    const rows = await (await this.sql).unsafe<{ column_name: string }[]>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = COALESCE($1::text, current_schema()) AND table_name = $2::text",
      [table.schema, table.table],
    );
    return rows.length === 0 ? null : new Set(rows.map((r) => r.column_name));
  }

  async ddl(statement: string): Promise<void> {
    await (await this.sql).unsafe(statement);
  }

  async maxStatementBytes(): Promise<null> {
    return null; // a message may hold 1 GB; the 65535 parameters of a statement come first
  }

  async transaction(work: (session: SqlSession) => Promise<void>): Promise<void> {
    await (await this.sql).begin(async (tx) => {
      await work({
        execute: async (text, params) => {
          // Statements without parameters (a COPY run's staging) are not kept as prepared statements.
          await tx.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: params.length > 0 });
        },
        copyFrom: (statement, data) => copyIn(tx, statement, data),
      });
    });
  }

  async close(): Promise<void> {
    const sql = await this.sql.catch(() => null);
    await sql?.end({ timeout: 5 });
  }
}

class MySqlDatabase implements Database {
  /** The pool once its first login worked (PREFERRED falls back to plain text when the server has no TLS). */
  private readonly ready: Promise<mysql.Pool>;

  constructor(target: ConnectionTarget, credentials: Credentials) {
    this.ready = openMySqlPool(target, credentials, target.mysqlTls ?? PLAIN_MYSQL);
    this.ready.catch(() => {}); // the first use reports it
  }

  async columns(table: TableId): Promise<Set<string> | null> {
    const [rows] = await (await this.ready).execute<mysql.RowDataPacket[]>(
      "SELECT COLUMN_NAME AS name FROM information_schema.columns WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?",
      [table.schema, table.table],
    );
    return rows.length === 0 ? null : new Set(rows.map((r) => String(r.name)));
  }

  async ddl(statement: string): Promise<void> {
    await (await this.ready).query(statement);
  }

  async maxStatementBytes(): Promise<number> {
    const [rows] = await (await this.ready).query<mysql.RowDataPacket[]>("SELECT @@max_allowed_packet AS bytes");
    return Number(rows[0]?.bytes);
  }

  async transaction(work: (session: SqlSession) => Promise<void>): Promise<void> {
    const connection = await (await this.ready).getConnection();
    try {
      await connection.beginTransaction();
      try {
        await work({
          execute: async (text, params) => {
            // mysql2 sends only Buffers as binary.
            const bound = params.map((p) =>
              p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p,
            );
            await connection.execute(text, bound);
          },
        });
        await connection.commit();
      } catch (err) {
        await connection.rollback().catch(() => {}); // the original error is the one worth reporting
        throw err;
      }
    } finally {
      connection.release();
    }
  }

  async close(): Promise<void> {
    const pool = await this.ready.catch(() => null);
    await pool?.end();
  }
}

async function openMySqlPool(target: ConnectionTarget, credentials: Credentials, tls: MySqlTls): Promise<mysql.Pool> {
  const attempt = async (encrypt: boolean) => {
    const pool = mysql.createPool({
      host: target.host,
      port: target.port,
      database: target.database || undefined,
      user: credentials.user,
      password: credentials.password,
      ...(encrypt ? { ssl: mysqlSsl(tls) } : {}),
      connectionLimit: 1,
      // Multi-row INSERTs of every length would otherwise pile up prepared statements on the server.
      maxPreparedStatements: 64,
      timezone: "Z",
    });
    try {
      await pool.query("SELECT 1");
      return pool;
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
  };
  if (tls.use === "plain") return attempt(false);
  try {
    return await attempt(true);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "HANDSHAKE_NO_SSL_SUPPORT") {
      if (tls.use === "preferred") return attempt(false);
      throw new Error(`${tls.requestedBy}: the server does not accept TLS connections`, { cause: err });
    }
    if (code === "HANDSHAKE_SSL_ERROR") {
      throw new Error(
        handshakeFailure(err, {
          requestedBy: tls.requestedBy,
          caSource: tls.caSource,
          hostSetting: "connection.url host",
          host: target.host,
        }),
        { cause: err },
      );
    }
    throw err;
  }
}

/** mysql2's TLS options: which CAs, whether the chain and the host name are checked, the client certificate. */
function mysqlSsl(tls: MySqlTls): mysql.SslOptions {
  return {
    ...(tls.ca ? { ca: [...tls.ca] } : {}),
    ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
    rejectUnauthorized: tls.verify !== "none",
    verifyIdentity: tls.verify === "full",
  };
}
