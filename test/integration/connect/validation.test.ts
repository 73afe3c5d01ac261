// What `dist/sluice dev` catches before a connector exists: the JDBC sink, the CDC source and the
// search sink try their connection while validating (real PostgreSQL, MariaDB and OpenSearch) and put
// the problem on the setting Confluent's and Debezium's connectors put it on; a misspelt connector
// class, `topic` on a sink and a tasks.max that is no number each give one clear error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient } from "../../fixtures/connect.ts";
import { startMariaDb, type MariaDbServer } from "../../fixtures/mariadb.ts";
import { sharedOpenSearch, type OpenSearchNode } from "../../fixtures/opensearch.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { startSluice, type SluiceProcess } from "../../fixtures/sluice-process.ts";
import { freePort } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-validation-"));
let sluice: SluiceProcess;
let api: ReturnType<typeof connectClient>;

beforeAll(async () => {
  const base = `http://127.0.0.1:${freePort()}`;
  const args = [
    "dev",
    "--data-dir",
    join(dir, "data"),
    "--registry-listeners",
    `http://127.0.0.1:${freePort()}`,
    "--connect-listeners",
    base,
  ];
  sluice = await startSluice(args, { cwd: dir, readyUrl: `${base}/connectors`, env: {} });
  api = connectClient(base);
}, 120_000);
afterAll(async () => {
  await sluice?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Infos = { error_count: number; configs: { value: { name: string; errors: string[] } }[] };

/** The errors of a validation, by setting, only for settings that have some. */
async function validate(plugin: string, config: Record<string, string>): Promise<Record<string, string[]>> {
  const res = await api.put(`/connector-plugins/${plugin}/config/validate`, config);
  expect(res.status).toBe(200);
  const infos = res.body as Infos;
  return Object.fromEntries(
    infos.configs.filter((c) => c.value.errors.length > 0).map((c) => [c.value.name, c.value.errors]),
  );
}

/** A port nothing listens on. */
const closedPort = () => String(freePort());

describe("connector classes and framework settings", () => {
  test("a misspelt connector class names the installed connectors and the nearest one", async () => {
    const res = await api.post("/connectors", { name: "typo", config: { "connector.class": "JdbcSinc", topics: "t" } });
    expect(res.status).toBe(400);
    const message = (res.body as { message: string }).message;
    expect(message).not.toContain("PluginDesc");
    expect(message).toContain(
      "available connectors are: io.confluent.connect.elasticsearch.ElasticsearchSinkConnector, io.confluent.connect.jdbc.JdbcSinkConnector",
    );
    expect(message).toEndWith("Did you mean JdbcSink?");
  });

  test("`topic` on a sink is one error that says topics", async () => {
    const errors = await validate("FileStreamSinkConnector", {
      "connector.class": "FileStreamSink",
      name: "s",
      topic: "lines",
      file: join(dir, "out.txt"),
    });
    expect(errors).toEqual({
      topics: [
        "Must configure one of topics or topics.regex; this config has topic=lines, which sink connectors do not read: did you mean topics?",
      ],
    });
  });

  test("tasks.max that is no number is one error", async () => {
    const errors = await validate("FileStreamSinkConnector", {
      "connector.class": "FileStreamSink",
      name: "s",
      topics: "lines",
      "tasks.max": "abc",
    });
    expect(errors).toEqual({
      "tasks.max": ["Invalid value abc for configuration tasks.max: Not a number of type INT"],
    });
  });
});

describe("database connectors try their connection", () => {
  let pg: PostgresServer;
  let maria: MariaDbServer;
  beforeAll(async () => {
    [pg, maria] = await Promise.all([startPostgres(), startMariaDb()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), maria?.stop()]);
  });

  const cdc = (over: Record<string, string>) => ({
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    name: "cdc",
    "topic.prefix": "shop",
    "database.hostname": "127.0.0.1",
    "database.port": String(pg.port),
    "database.user": pg.user,
    "database.dbname": "postgres",
    ...over,
  });
  const jdbc = (url: string, over: Record<string, string> = {}) => ({
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    name: "jdbc",
    topics: "orders",
    "connection.url": url,
    "connection.user": maria.user,
    ...over,
  });

  test("a CDC source that can log in validates clean", async () => {
    expect(await validate("PostgresConnector", cdc({}))).toEqual({});
  });

  test("CDC: wrong port, database and user are reported on database.hostname, as Debezium does", async () => {
    const port = await validate("PostgresConnector", cdc({ "database.port": closedPort() }));
    expect(Object.keys(port)).toEqual(["database.hostname"]);
    expect(port["database.hostname"]![0]).toStartWith("Error while validating connector config: ");
    expect(await validate("PostgresConnector", cdc({ "database.dbname": "nope" }))).toEqual({
      "database.hostname": ['Error while validating connector config: database "nope" does not exist'],
    });
    expect(await validate("PostgresConnector", cdc({ "database.user": "nobody" }))).toEqual({
      "database.hostname": ['Error while validating connector config: role "nobody" does not exist'],
    });
  });

  test("CDC: POST /connectors answers the connection error and creates nothing", async () => {
    const res = await api.post("/connectors", { name: "cdc", config: cdc({ "database.dbname": "nope" }) });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain(
      '\nError while validating connector config: database "nope" does not exist\n',
    );
    expect((await api.get("/connectors/cdc")).status).toBe(404);
  });

  test("JDBC sink: wrong password, port and database are reported on connection.url, as Confluent does", async () => {
    const url = `jdbc:mariadb://127.0.0.1:${maria.port}/${maria.database}`;
    expect(await validate("JdbcSinkConnector", jdbc(url))).toEqual({});
    const password = await validate("JdbcSinkConnector", jdbc(url, { "connection.password": "wrong" }));
    expect(password).toEqual({
      "connection.url": [
        expect.stringMatching(
          /^Could not connect to database\. Access denied for user 'root'@'[^']+' \(using password: YES\)$/,
        ),
      ],
    });
    const port = await validate(
      "JdbcSinkConnector",
      jdbc(`jdbc:mariadb://127.0.0.1:${closedPort()}/${maria.database}`),
    );
    expect(port["connection.url"]![0]).toStartWith("Could not connect to database. ");
    expect(await validate("JdbcSinkConnector", jdbc(`jdbc:mariadb://127.0.0.1:${maria.port}/nope`))).toEqual({
      "connection.url": ["Could not connect to database. Unknown database 'nope'"],
    });
    const pgDatabase = await validate(
      "JdbcSinkConnector",
      jdbc(`jdbc:postgresql://127.0.0.1:${pg.port}/nope`, { "connection.user": pg.user }),
    );
    expect(pgDatabase).toEqual({ "connection.url": ['Could not connect to database. database "nope" does not exist'] });
  });

  test("JDBC sink: a URL no dialect serves is a problem of connection.url, found without connecting", async () => {
    const errors = await validate("JdbcSinkConnector", jdbc("jdbc:oracle:thin:@127.0.0.1:1521:orcl"));
    expect(errors).toEqual({
      "connection.url": [
        "Invalid value jdbc:oracle:thin:@127.0.0.1:1521:orcl for configuration connection.url: a jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb:// URL is required",
      ],
    });
  });
});

describe("the search sink tries its connection", () => {
  let search: OpenSearchNode;
  beforeAll(async () => {
    search = await sharedOpenSearch();
  }, 300_000);

  const sink = (url: string, over: Record<string, string> = {}) => ({
    "connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
    name: "search",
    topics: "orders",
    "connection.url": url,
    ...over,
  });

  test("a reachable server validates clean; a closed port is reported on connection.url and the credentials", async () => {
    expect(await validate("ElasticsearchSinkConnector", sink(search.url))).toEqual({});
    const closed = await validate(
      "ElasticsearchSinkConnector",
      sink(`http://127.0.0.1:${closedPort()}`, { "connection.username": "u", "connection.password": "p" }),
    );
    expect(Object.keys(closed).sort()).toEqual(["connection.password", "connection.url", "connection.username"]);
    expect(closed["connection.url"]![0]).toStartWith("Could not connect to Elasticsearch. Error message: ");
    expect(closed["connection.username"]![0]).toStartWith(
      "Could not authenticate the user. Check the 'connection.username' and 'connection.password'. Error message: ",
    );
  });

  test("a URL that is not http(s) is refused without connecting", async () => {
    const url = search.url.replace("http://", "ftp://");
    expect(await validate("ElasticsearchSinkConnector", sink(url))).toEqual({
      "connection.url": [
        `Invalid value [${url}] for configuration connection.url: The provided url '${url}' is not a valid url: its scheme must be http or https.`,
      ],
    });
  });
});
