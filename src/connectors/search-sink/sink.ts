// io.confluent.connect.elasticsearch.ElasticsearchSinkConnector: writes each topic to the index of the
// same (lower-cased) name through the Bulk API, on Elasticsearch 7+/8 and OpenSearch alike. Before the
// first document for an index the task creates the index and, unless schema.ignore, puts the mapping of
// the value schema (indices.ts). Documents are written asynchronously; flush() waits for them, so
// offsets are committed only for written records.
import { logger, type Logger } from "../../platform/log.ts";
import { ConfigError, type SettingsDefinition } from "../../platform/settings.ts";
import { DataException } from "../../connect/api/data/index.ts";
import { connectionProblem } from "../../connect/api/connection-check.ts";
import { ConnectException, SinkConnector, SinkTask } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import { VERSION } from "../../platform/version.ts";
import { bulkAction, describeRecord } from "./bulk-actions.ts";
import { BulkClient } from "./bulk-client.ts";
import { BulkWriter } from "./bulk-writer.ts";
import { SearchTlsException, SECURITY_PROTOCOL, SSL_PREFIX } from "./https.ts";
import { Indices } from "./indices.ts";
import { searchSinkConfig, searchSinkSettings, type SearchSinkConfig } from "./settings.ts";

export class ElasticsearchSinkConnector extends SinkConnector {
  static readonly className = "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector";
  static readonly aliases = ["ElasticsearchSink", "OpenSearchSink"];
  private props: Record<string, string> = {};

  version(): string {
    return VERSION;
  }
  start(props: Record<string, string>): void {
    searchSinkSettings.parse(props);
    this.props = props;
  }
  taskClass() {
    return ElasticsearchSinkTask;
  }
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.props }));
  }
  stop(): void {}
  config(): SettingsDefinition {
    return searchSinkSettings;
  }
  /** The index holds no positions: the consumer group's offsets are all there is. */
  override alterOffsets(): boolean {
    return true;
  }
  /**
   * Confluent's checks: the SSL settings go with elastic.security.protocol=SSL (and it wants some), then
   * the server's root must answer (403 counts: the server is there, the user may just not read it). A
   * failure goes on connection.url, on the credentials when given, on elastic.security.protocol with
   * SSL, and a TLS failure also on the setting that can fix it.
   */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    const sslGiven = Object.keys(props).some((name) => name.startsWith(SSL_PREFIX));
    const ssl = (props[SECURITY_PROTOCOL] ?? "").trim().toUpperCase() === "SSL";
    if (ssl !== sslGiven) {
      const message = ssl
        ? `At least these SSL configs ('${SSL_PREFIX}ssl.keystore.location', '${SSL_PREFIX}ssl.keystore.password', '${SSL_PREFIX}ssl.truststore.location', and '${SSL_PREFIX}ssl.truststore.password') must be present for SSL support. Otherwise set '${SECURITY_PROTOCOL}' to 'PLAINTEXT'.`
        : `'${SECURITY_PROTOCOL}' must be set to 'SSL' to use SSL configs.`;
      return new Map([[SECURITY_PROTOCOL, [message]]]);
    }
    let config: SearchSinkConfig;
    try {
      config = searchSinkConfig(searchSinkSettings.parse(props).values);
    } catch (err) {
      // A key or trust store that cannot be read (a missing file, a wrong password, a JKS file).
      if (err instanceof ConfigError) return new Map([[err.setting, [err.message]]]);
      throw err;
    }
    const client = new BulkClient(config);
    let tlsFailure: SearchTlsException | undefined;
    const root = async () => {
      try {
        const { url, status, text } = await client.request("GET", "/");
        if ((status < 200 || status >= 300) && status !== 403)
          throw new Error(`${url} answered ${status}: ${text.slice(0, 200)}`);
      } catch (err) {
        if (err instanceof SearchTlsException) tlsFailure = err;
        throw err;
      }
    };
    const problem = await connectionProblem(root, (cause) => `Error message: ${cause}`);
    if (problem === undefined) return new Map();
    const problems = new Map([["connection.url", [`Could not connect to Elasticsearch. ${problem}`]]]);
    if (config.auth) {
      const credentials = `Could not authenticate the user. Check the 'connection.username' and 'connection.password'. ${problem}`;
      problems.set("connection.username", [credentials]);
      problems.set("connection.password", [credentials]);
    }
    if (config.https.ssl)
      problems.set(SECURITY_PROTOCOL, [`Could not connect to Elasticsearch. Check your SSL settings. ${problem}`]);
    const failure = tlsFailure as SearchTlsException | undefined;
    if (failure && !problems.has(failure.setting)) problems.set(failure.setting, [failure.message]);
    return problems;
  }
}

export class ElasticsearchSinkTask extends SinkTask {
  static readonly className = "io.confluent.connect.elasticsearch.ElasticsearchSinkTask";
  private config!: SearchSinkConfig;
  private writer!: BulkWriter;
  private indices!: Indices;
  private log!: Logger;

  version(): string {
    return VERSION;
  }

  start(props: Record<string, string>): void {
    this.config = searchSinkConfig(searchSinkSettings.parse(props).values);
    this.log = logger(`elasticsearch-sink ${props.name ?? ""}`.trim());
    const client = new BulkClient(this.config);
    this.indices = new Indices(this.config, client, this.log);
    this.writer = new BulkWriter(this.config, client, this.log, this.context.errantRecordReporter());
  }

  async put(records: SinkRecord[]): Promise<void> {
    for (const record of records) {
      const action = this.action(record);
      if (action === null) continue;
      await this.indices.prepare(record);
      await this.writer.add(action, describeRecord(record), record);
    }
  }

  override async flush(): Promise<void> {
    await this.writer.flush(this.config.flushTimeoutMs);
  }

  stop(): void {
    this.writer?.close();
  }

  /** The record's bulk action; null when it writes nothing or is skipped under drop.invalid.message. */
  private action(record: SinkRecord): string | null {
    try {
      return bulkAction(record, this.config);
    } catch (err) {
      if (!(err instanceof DataException)) throw err;
      if (!this.config.dropInvalidMessage)
        throw new ConnectException(`Cannot write ${describeRecord(record)}: ${err.message}`, err);
      this.log.warn(
        { record: describeRecord(record), reason: err.message },
        "dropping a record that cannot be written (drop.invalid.message)",
      );
      return null;
    }
  }
}
