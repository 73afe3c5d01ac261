// What a deleted connector leaves in PostgreSQL. A logical slot nobody reads keeps every WAL segment
// from its restart_lsn on, until the disk fills: with slot.drop.on.stop the slot goes (the task drops it
// on each stop, as Debezium's does; this catches a task that was not running, or failed to), otherwise
// one warning names the slot and gives the SQL to drop it by hand.
import type { Sql } from "postgres";
import type { Logger } from "../../platform/log.ts";
import type { PostgresCdcConfig } from "./config.ts";
import { quoteIdentifier } from "./replication-connection.ts";
import { connectSql } from "./sql-connection.ts";

/** How long a delete waits for the database before warning without having looked. */
const DELETE_CHECK_TIMEOUT_MS = 10_000;

/** SQL string literal (standard_conforming_strings, on by default since PostgreSQL 9.1). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The statements that remove what the connector made: the slot, and the publication when Sluice may have created it. */
export function cleanupStatements(config: PostgresCdcConfig, publicationExists: boolean): string[] {
  const statements = [`SELECT pg_drop_replication_slot(${literal(config.slotName)});`];
  if (publicationExists && config.publicationAutocreate !== "disabled")
    statements.push(`DROP PUBLICATION ${quoteIdentifier(config.publicationName)};`);
  return statements;
}

/**
 * After the connector `name` was deleted (its tasks stopped): drops its slot (slot.drop.on.stop) or
 * warns once that it is left behind. `dropSlot` drops it once no walsender holds it any more.
 */
export async function afterDelete(
  name: string | undefined,
  config: PostgresCdcConfig,
  log: Logger,
  dropSlot: (sql: Sql, slot: string) => Promise<unknown>,
): Promise<void> {
  const slot = config.slotName;
  const connector = name ?? null;
  let sql: Sql | null = null;
  /** Set once the delete stopped waiting: a late answer neither logs nor leaves a connection open. */
  let over = false;
  const look = async () => {
    const connection = await connectSql(config, 1);
    if (over) return void (await connection.end({ timeout: 1 }).catch(() => {}));
    sql = connection;
    const [found] = await sql<{ publication: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = ${config.publicationName}) AS publication
        FROM pg_replication_slots WHERE slot_name = ${slot}`;
    if (found === undefined || over) return; // never made (initial_only), or dropped by the stopping task
    if (config.slotDropOnStop) {
      await dropSlot(sql, slot);
      log.info({ connector, slot }, `replication slot ${slot} dropped (slot.drop.on.stop)`);
      return;
    }
    const statements = cleanupStatements(config, found.publication);
    const publication = statements.length > 1 ? ` and publication ${config.publicationName}` : "";
    log.warn(
      { connector, slot, sql: statements.join(" ") },
      `connector ${name ?? ""} was deleted; its replication slot ${slot}${publication} ${publication ? "stay" : "stays"} behind in database ${config.database}, and the slot keeps PostgreSQL from removing WAL until it is dropped (slot.drop.on.stop=false). Once nothing will resume from it: ${statements.join(" ")}${publication ? ` (the publication only if no other connector uses it)` : ""}`,
    );
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${DELETE_CHECK_TIMEOUT_MS} ms`)),
      DELETE_CHECK_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([look(), timeout]);
  } catch (err) {
    const statement = cleanupStatements(config, false)[0]!;
    log.warn(
      { connector, slot, sql: statement, err: err instanceof Error ? err.message : String(err) },
      config.slotDropOnStop
        ? `connector ${name ?? ""} was deleted but its replication slot ${slot} could not be dropped (slot.drop.on.stop); if it still exists, it keeps PostgreSQL from removing WAL: ${statement}`
        : `connector ${name ?? ""} was deleted; its replication slot ${slot} may stay behind in database ${config.database} (the database could not be checked), keeping PostgreSQL from removing WAL: ${statement}`,
    );
  } finally {
    over = true;
    clearTimeout(timer);
    await (sql as Sql | null)?.end({ timeout: 1 }).catch(() => {});
  }
}
