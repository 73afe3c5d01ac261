// io.confluent.connect.jdbc.JdbcSinkConnector: writes schema'd records into PostgreSQL or MySQL/MariaDB
// tables. put() commits its own transaction before returning, so flush() has nothing left to make
// durable and the framework's offset commit (after flush) never runs ahead of the rows.
import { logger } from "../../platform/log.ts";
import { ConfigError } from "../../platform/settings.ts";
import { DataException } from "../../connect/api/data/index.ts";
import { connectionProblem } from "../../connect/api/connection-check.ts";
import { ConnectException, SinkConnector, SinkTask, type ErrantRecordReporter } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import { VERSION } from "../../platform/version.ts";
import { openDatabase, type Database } from "./database.ts";
import { jdbcSinkSettings, parseJdbcSinkConfig, type JdbcSinkConfig } from "./settings.ts";
import { TableAlterOrCreateException } from "./table-structure.ts";
import { JdbcWriter } from "./writer.ts";

const log = logger("jdbc-sink");

export class JdbcSinkConnector extends SinkConnector {
  static readonly className = "io.confluent.connect.jdbc.JdbcSinkConnector";
  private props: Record<string, string> = {};

  version(): string {
    return VERSION;
  }
  start(props: Record<string, string>): void {
    parseJdbcSinkConfig(props); // fail the connector, not only its tasks, on a bad configuration
    this.props = props;
  }
  taskClass() {
    return JdbcSinkTask;
  }
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.props }));
  }
  stop(): void {}
  config() {
    return jdbcSinkSettings;
  }
  /** The consumer group's offsets are all the state there is. */
  override alterOffsets(): boolean {
    return true;
  }
  /**
   * Confluent's validate: the checks across settings, then one connection attempt, whose error goes on
   * connection.url with Confluent's wording.
   */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    let config: JdbcSinkConfig;
    try {
      config = parseJdbcSinkConfig(props);
    } catch (err) {
      // A ConfigError names its setting; the one ConnectException is about pk.fields.
      return new Map([[err instanceof ConfigError ? err.setting : "pk.fields", [(err as Error).message]]]);
    }
    const problem = await connectionProblem(
      async () => (await connectOnce(config)).close(),
      (cause) => `Could not connect to database. ${cause}`,
    );
    return new Map(problem === undefined ? [] : [["connection.url", [problem]]]);
  }
}

/** A database whose login worked: both clients connect lazily, so a harmless metadata query proves it. */
async function connectOnce(config: JdbcSinkConfig): Promise<Database> {
  const db = openDatabase(config.target, { user: config.user, password: config.password }, config.timeZone);
  try {
    await db.columns({ schema: null, table: "" });
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}

/** Errors about the records or the configuration: retrying the same batch cannot help. */
/** What the dead letter queue's exception headers name: a database error as the JDBC driver's SQLException. */
function reportedError(err: unknown): Error {
  if (err instanceof TableAlterOrCreateException) return err;
  const reported = new Error(err instanceof Error ? err.message : String(err));
  reported.name = "java.sql.SQLException";
  return reported;
}

function isPermanent(err: unknown): boolean {
  return err instanceof ConnectException || err instanceof DataException || err instanceof TypeError;
}

export class JdbcSinkTask extends SinkTask {
  static readonly className = "io.confluent.connect.jdbc.sink.JdbcSinkTask";
  private config!: JdbcSinkConfig;
  private db: Database | undefined;
  private writer!: JdbcWriter;
  private remainingRetries = 0;
  private stopping = false;

  version(): string {
    return VERSION;
  }

  async start(props: Record<string, string>): Promise<void> {
    this.config = parseJdbcSinkConfig(props);
    this.remainingRetries = this.config.maxRetries;
    this.db = await this.connect();
    this.writer = new JdbcWriter(this.config, this.db);
  }

  /** connection.attempts tries, connection.backoff.ms apart, to reach the database. */
  private async connect(): Promise<Database> {
    const { target, connectionAttempts, connectionBackoffMs } = this.config;
    for (let attempt = 1; ; attempt++) {
      try {
        return await connectOnce(this.config);
      } catch (err) {
        if (attempt >= connectionAttempts || this.stopping)
          throw new ConnectException(
            `Unable to connect to ${target.dialect} at ${target.host}:${target.port} after ${attempt} attempt(s): ${(err as Error).message}`,
            err,
          );
        log.warn({ attempt, err: (err as Error).message }, "cannot connect to the database; retrying");
        await Bun.sleep(connectionBackoffMs); // connection.backoff.ms between attempts
      }
    }
  }

  /**
   * Writes the batch in one transaction. A database error is retried max.retries times,
   * retry.backoff.ms apart, on the same batch (the transaction rolled back, so nothing is duplicated);
   * then, as Confluent's sink, the batch is written record by record when the task has an errant
   * record reporter (a dead letter queue or errors.log.enable), each record that fails going to it;
   * without one the task fails. A table that cannot be created or altered goes the same way at once.
   */
  async put(records: SinkRecord[]): Promise<void> {
    for (;;) {
      try {
        await this.writer.write(records);
        this.remainingRetries = this.config.maxRetries;
        return;
      } catch (err) {
        const reporter = this.context.errantRecordReporter();
        if (err instanceof TableAlterOrCreateException && reporter) return this.writeOneByOne(records, reporter);
        if (isPermanent(err)) throw err;
        const message = err instanceof Error ? err.message : String(err);
        if (this.remainingRetries <= 0 || this.stopping) {
          if (reporter && !this.stopping) return this.writeOneByOne(records, reporter);
          throw new ConnectException(
            `Writing ${records.length} record(s) failed after ${this.config.maxRetries} retries: ${message}`,
            err,
          );
        }
        this.remainingRetries--;
        log.warn(
          { err: message, remainingRetries: this.remainingRetries, retryInMs: this.config.retryBackoffMs },
          "write failed; retrying the batch",
        );
        await Bun.sleep(this.config.retryBackoffMs); // retry.backoff.ms
      }
    }
  }

  /** Each record in its own transaction; the ones the database refuses go to the errant record reporter. */
  private async writeOneByOne(records: SinkRecord[], reporter: ErrantRecordReporter): Promise<void> {
    log.warn({ records: records.length }, "writing the batch record by record, reporting the records that fail");
    for (const record of records) {
      try {
        await this.writer.write([record]);
      } catch (err) {
        if (isPermanent(err) && !(err instanceof TableAlterOrCreateException)) throw err;
        await reporter.report(record, reportedError(err));
      }
    }
    this.remainingRetries = this.config.maxRetries;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.db?.close();
    this.db = undefined;
  }
}
