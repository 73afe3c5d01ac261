// io.debezium.connector.postgresql.PostgresConnector (alias PostgresCdc): change data capture from
// PostgreSQL's logical replication (pgoutput), writing Debezium's topics, events and offsets.
import { ConfigError, type SettingsDefinition } from "../../platform/settings.ts";
import { connectionProblem } from "../../connect/api/connection-check.ts";
import { SourceConnector, type ExactlyOnceSupport } from "../../connect/api/connector.ts";
import { VERSION } from "../../platform/version.ts";
import { parsePostgresCdcConfig, postgresCdcSettings, type PostgresCdcConfig } from "./config.ts";
import { logger } from "../../platform/log.ts";
import { afterDelete } from "./slot-hygiene.ts";
import { connectSql } from "./sql-connection.ts";
import { dropSlotWhenFree, PostgresCdcTask } from "./task.ts";

const log = logger("postgres-cdc");

export class PostgresConnector extends SourceConnector {
  static readonly className = "io.debezium.connector.postgresql.PostgresConnector";
  private props: Record<string, string> = {};

  version(): string {
    return VERSION;
  }
  start(props: Record<string, string>): void {
    parsePostgresCdcConfig(props); // fails the connector with the setting's problem
    this.props = props;
  }
  taskClass() {
    return PostgresCdcTask;
  }
  taskConfigs(): Record<string, string>[] {
    // One slot is read by one walsender: always a single task, as Debezium's.
    return [{ ...this.props }];
  }
  stop(): void {}
  /** Its slot goes (slot.drop.on.stop) or is named in a warning with the SQL that drops it. */
  override async deleted(props: Record<string, string>): Promise<void> {
    await afterDelete(props.name, parsePostgresCdcConfig(props), log, dropSlotWhenFree);
  }
  config(): SettingsDefinition {
    return postgresCdcSettings;
  }
  /**
   * As Debezium's: streaming resumes from the LSN in the committed offsets, and the slot is only told
   * to release WAL once those offsets are committed (task commit()).
   */
  override exactlyOnceSupport(): ExactlyOnceSupport {
    return "SUPPORTED";
  }
  /**
   * Debezium's validateConnection: a login and `SELECT version()`; whatever fails (host, port,
   * database, user, password, TLS) goes on database.hostname with Debezium's wording. A TLS file that
   * cannot be read goes on its own setting.
   */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    let config: PostgresCdcConfig;
    try {
      config = parsePostgresCdcConfig(props);
    } catch (err) {
      if (err instanceof ConfigError) return new Map([[err.setting, [err.message]]]);
      throw err;
    }
    const login = async () => {
      const sql = await connectSql(config, 1);
      try {
        await sql`SELECT version()`;
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    const problem = await connectionProblem(login, (cause) => `Error while validating connector config: ${cause}`);
    return new Map(problem === undefined ? [] : [["database.hostname", [problem]]]);
  }
}
