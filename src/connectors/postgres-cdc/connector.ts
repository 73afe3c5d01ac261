// io.debezium.connector.postgresql.PostgresConnector (alias PostgresCdc): change data capture from
// PostgreSQL's logical replication (pgoutput), writing Debezium's topics, events and offsets.
import postgres from "postgres";
import type { SettingsDefinition } from "../../platform/settings.ts";
import { connectionProblem } from "../../connect/api/connection-check.ts";
import { SourceConnector } from "../../connect/api/connector.ts";
import { VERSION } from "../../platform/version.ts";
import { parsePostgresCdcConfig, postgresCdcSettings } from "./config.ts";
import { PostgresCdcTask } from "./task.ts";

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
  config(): SettingsDefinition {
    return postgresCdcSettings;
  }
  /**
   * Debezium's validateConnection: a login and `SELECT version()`; whatever fails (host, port,
   * database, user, password) goes on database.hostname with Debezium's wording.
   */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    const config = parsePostgresCdcConfig(props);
    const login = async () => {
      const sql = postgres({ host: config.hostname, port: config.port, user: config.user, password: config.password, database: config.database, max: 1, onnotice: () => {} });
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
