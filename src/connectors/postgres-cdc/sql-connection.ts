// The connector's SQL connections (catalog, snapshot, validation) through the `postgres` library, over
// sockets opened as database.sslmode asks: the library's own TLS knows neither verify-ca, client key
// passwords, nor libpq's fallbacks.
import type { Socket } from "node:net";
import postgres, { type Sql } from "postgres";
import { withPostgresTls } from "../../platform/postgres-tls.ts";
import type { PostgresCdcConfig } from "./config.ts";

/** A pool of at most `max` connections whose first login has worked (so allow/prefer have chosen). */
export async function connectSql(config: PostgresCdcConfig, max: number): Promise<Sql> {
  return withPostgresTls(config.hostname, config.port, config.tls, async (open) => {
    const options = { host: config.hostname, port: config.port, user: config.user, password: config.password, database: config.database, max, onnotice: () => {} };
    // `socket` (a factory of connected sockets) is in the library's options, though not in its types.
    const sql = postgres({ ...options, socket: open } as typeof options & { socket: () => Promise<Socket> });
    try {
      await sql`SELECT 1`;
      return sql;
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw err;
    }
  });
}
