// The connector's SQL connections (catalog, snapshot, validation) through the `postgres` library, with
// TLS as database.sslmode asks: the library's own sslmode strings know neither verify-ca, client keys,
// nor libpq's fallbacks, so it is handed Node's TLS options instead.
import postgres, { type Sql } from "postgres";
import { withPostgresLibrary } from "../../platform/postgres-tls.ts";
import type { PostgresCdcConfig } from "./config.ts";

/** A pool of at most `max` connections whose first login has worked (so allow/prefer have chosen). */
export async function connectSql(config: PostgresCdcConfig, max: number): Promise<Sql> {
  return withPostgresLibrary(config.hostname, config.port, config.tls, async (ssl) => {
    const sql = postgres({
      host: config.hostname,
      port: config.port,
      user: config.user,
      password: config.password,
      database: config.database,
      max,
      ssl,
      onnotice: () => {},
    });
    try {
      await sql`SELECT 1`;
      return sql;
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw err;
    }
  });
}
