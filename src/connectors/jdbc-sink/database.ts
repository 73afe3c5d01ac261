// The two native clients behind one small interface: column lookup, DDL, and a transaction in which
// statements run with bound parameters (server-side prepared statements on both databases).
import mysql from "mysql2/promise";
import postgres from "postgres";
import type { ConnectionTarget } from "./connection-url.ts";
import type { SqlParam } from "./sql-values.ts";
import type { TableId } from "./statements.ts";

export interface SqlSession {
  execute(sql: string, params: SqlParam[]): Promise<void>;
}

export interface Database {
  /** Column names of the table as stored, or null when there is no such table. */
  columns(table: TableId): Promise<Set<string> | null>;
  ddl(statement: string): Promise<void>;
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
  return target.dialect === "postgresql" ? new PostgresDatabase(target, credentials, timeZone) : new MySqlDatabase(target, credentials);
}

class PostgresDatabase implements Database {
  private readonly sql: postgres.Sql;

  constructor(target: ConnectionTarget, credentials: Credentials, timeZone: string) {
    this.sql = postgres({
      host: target.host,
      port: target.port,
      database: target.database || undefined,
      username: credentials.user,
      password: credentials.password,
      ssl: target.ssl ? "require" : false,
      // One connection: a task writes one transaction at a time.
      max: 1,
      onnotice: () => {},
      // Timestamps are written as wall-clock text in db.timezone; TIMESTAMPTZ columns read them in it too.
      connection: { TimeZone: timeZone },
    });
  }

  async columns(table: TableId): Promise<Set<string> | null> {
    const rows = await this.sql.unsafe<{ column_name: string }[]>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = COALESCE($1::text, current_schema()) AND table_name = $2::text",
      [table.schema, table.table],
    );
    return rows.length === 0 ? null : new Set(rows.map((r) => r.column_name));
  }

  async ddl(statement: string): Promise<void> {
    await this.sql.unsafe(statement);
  }

  async transaction(work: (session: SqlSession) => Promise<void>): Promise<void> {
    await this.sql.begin(async (tx) => {
      await work({
        execute: async (text, params) => {
          await tx.unsafe(text, params as postgres.ParameterOrJSON<never>[]);
        },
      });
    });
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}

class MySqlDatabase implements Database {
  private readonly pool: mysql.Pool;

  constructor(target: ConnectionTarget, credentials: Credentials) {
    this.pool = mysql.createPool({
      host: target.host,
      port: target.port,
      database: target.database || undefined,
      user: credentials.user,
      password: credentials.password,
      ...(target.ssl ? { ssl: {} } : {}),
      connectionLimit: 1,
      // Multi-row INSERTs of every length would otherwise pile up prepared statements on the server.
      maxPreparedStatements: 64,
      timezone: "Z",
    });
  }

  async columns(table: TableId): Promise<Set<string> | null> {
    const [rows] = await this.pool.execute<mysql.RowDataPacket[]>(
      "SELECT COLUMN_NAME AS name FROM information_schema.columns WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?",
      [table.schema, table.table],
    );
    return rows.length === 0 ? null : new Set(rows.map((r) => String(r.name)));
  }

  async ddl(statement: string): Promise<void> {
    await this.pool.query(statement);
  }

  async transaction(work: (session: SqlSession) => Promise<void>): Promise<void> {
    const connection = await this.pool.getConnection();
    try {
      await connection.beginTransaction();
      try {
        await work({
          execute: async (text, params) => {
            // mysql2 sends only Buffers as binary.
            const bound = params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));
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
    await this.pool.end();
  }
}
