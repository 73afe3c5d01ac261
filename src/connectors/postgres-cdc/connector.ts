// io.debezium.connector.postgresql.PostgresConnector (alias PostgresCdc): change data capture from
// PostgreSQL's logical replication (pgoutput), writing Debezium's topics, events and offsets.
import type { SettingsDefinition } from "../../common/settings.ts";
import { SourceConnector } from "../../connect/plugins/connector.ts";
import { VERSION } from "../../version.ts";
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
}
