// The JDBC sink over TLS, through a real worker, into a PostgreSQL that lets TCP clients in only over
// TLS (`hostssl`) and a MariaDB with require_secure_transport=ON: the TLS parameters of the JDBC URL
// as each driver reads them, verify modes that refuse a certificate from another CA or for another
// host (naming the parameter), client certificates from the URL's key files, and the servers' own
// per-connection views (pg_stat_ssl, performance_schema's Ssl_cipher) showing the sink's connections
// encrypted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encoder } from "#src/broker/broker.ts";
import { certificateAuthority, pkcs12 } from "../../fixtures/certificates.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { startMariaDb, type MariaDbServer } from "../../fixtures/mariadb.ts";
import { startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

const CERT_USER = "writer";
const KEY_PASSWORD = "key-secret";
const STORE_PASSWORD = "store-secret";

const record = (id: number) => ({
  key: encoder.encode(
    JSON.stringify({
      schema: { type: "struct", optional: false, fields: [{ field: "id", type: "int32", optional: false }] },
      payload: { id },
    }),
  ),
  value: encoder.encode(
    JSON.stringify({
      schema: {
        type: "struct",
        optional: false,
        fields: [
          { field: "id", type: "int32", optional: false },
          { field: "name", type: "string", optional: false },
        ],
      },
      payload: { id, name: `item ${id}` },
    }),
  ),
  partition: 0,
});

describe("JDBC sink over TLS", () => {
  let pg: PostgresServer;
  let maria: MariaDbServer;
  let worker: TestConnect;
  let dir: string;
  const files: Record<string, string> = {};
  const api = () => connectClient(worker.url);

  beforeAll(async () => {
    const ca = certificateAuthority("Database CA");
    const other = certificateAuthority("Another CA");
    // For 127.0.0.1 only: `localhost` reaches the same servers but is not the certificates' name.
    const server = ca.issue("database server", "server", { ips: ["127.0.0.1"] });
    const client = ca.issue(CERT_USER, "client");
    [pg, maria] = await Promise.all([
      startPostgres({
        tls: {
          ...server,
          ca: ca.cert,
          hba: [`hostssl all ${CERT_USER} 127.0.0.1/32 cert`, "hostssl all all 127.0.0.1/32 trust"],
        },
      }),
      startMariaDb({ tls: { ...server, ca: ca.cert, requireSecureTransport: true } }),
    ]);
    pg.psql(`CREATE ROLE ${CERT_USER} LOGIN SUPERUSER`);
    maria.query(
      `CREATE USER '${CERT_USER}'@'%' REQUIRE SUBJECT '/CN=${CERT_USER}'; GRANT ALL ON ${maria.database}.* TO '${CERT_USER}'@'%'`,
    );
    dir = mkdtempSync(join(tmpdir(), "sluice-jdbc-tls-"));
    const file = (name: string, content: string | Buffer) => {
      writeFileSync(join(dir, name), content);
      files[name] = join(dir, name);
    };
    file("ca.pem", ca.cert);
    file("other-ca.pem", other.cert);
    file("client.pem", client.cert);
    // The PostgreSQL JDBC driver's own key format: PKCS8 DER (.pk8), here encrypted.
    file(
      "client.pk8",
      createPrivateKey(client.key).export({
        type: "pkcs8",
        format: "der",
        cipher: "aes-256-cbc",
        passphrase: KEY_PASSWORD,
      }),
    );
    file("client.p12", pkcs12(client, [ca.cert], STORE_PASSWORD));
    worker = await startTestConnect("embedded", { "task.threads": "0" });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await Promise.all([pg?.stop(), maria?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const sinkConfig = (name: string, url: string, user: string) => ({
    name,
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    topics: name,
    "connection.url": url,
    "connection.user": user,
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "insert.mode": "upsert",
    "pk.mode": "record_key",
    "auto.create": "true",
    "connection.attempts": "1",
  });
  /** The error messages validation gives for connection.url. */
  const urlProblems = async (config: Record<string, string>): Promise<string[]> => {
    const r = await api().put("/connector-plugins/JdbcSinkConnector/config/validate", config);
    expect(r.status).toBe(200);
    const infos = r.body as { configs: { value: { name: string; errors: string[] } }[] };
    return infos.configs.find((c) => c.value.name === "connection.url")!.value.errors;
  };
  /** Creates the connector on a new topic of three records and waits until `count` reads 3. */
  const sinksRows = async (name: string, url: string, user: string, count: () => string) => {
    await worker.connect.broker.createTopic({ name, partitions: 1, replicationFactor: 1 });
    await worker.connect.broker.produce(name, [record(1), record(2), record(3)]);
    const created = await api().post("/connectors", { name, config: sinkConfig(name, url, user) });
    expect(created.status).toBe(201);
    await waitFor(`3 rows in ${name}`, () => {
      try {
        return count() === "3" || undefined;
      } catch {
        return undefined; // the table is not created yet
      }
    });
  };
  const pgUrl = (query: string, host = "127.0.0.1") => `jdbc:postgresql://${host}:${pg.port}/postgres?${query}`;
  const mariaUrl = (query: string, host = "127.0.0.1", subprotocol = "mariadb") =>
    `jdbc:${subprotocol}://${host}:${maria.port}/${maria.database}?${query}`;

  describe("PostgreSQL", () => {
    test("sslmode=verify-full with a root certificate from another CA: refused with the parameter and the TLS error", async () => {
      const config = sinkConfig(
        "pg_wrong_ca",
        pgUrl(`sslmode=verify-full&sslrootcert=${files["other-ca.pem"]}`),
        pg.user,
      );
      const refused = await api().post("/connectors", { name: config.name, config });
      expect(refused.status).toBe(400);
      expect((refused.body as { message: string }).message).toMatch(
        /Could not connect to database\. sslmode=verify-full: the server's certificate is not signed by a CA in sslrootcert \(\S+other-ca\.pem\): \w+/,
      );
      // verify-ca checks the chain too; ssl=true without sslmode is verify-full (the JDBC driver's reading).
      expect(
        (
          await urlProblems({
            ...config,
            "connection.url": pgUrl(`sslmode=verify-ca&sslrootcert=${files["other-ca.pem"]}`),
          })
        )[0],
      ).toContain("sslmode=verify-ca: the server's certificate is not signed");
      expect(
        (await urlProblems({ ...config, "connection.url": pgUrl(`ssl=true&sslrootcert=${files["other-ca.pem"]}`) }))[0],
      ).toContain("sslmode=verify-full: the server's certificate is not signed");
    });

    test("sslmode=verify-full to a host name the certificate is not for: refused; verify-ca to it is not", async () => {
      const config = sinkConfig(
        "pg_wrong_host",
        pgUrl(`sslmode=verify-full&sslrootcert=${files["ca.pem"]}`, "localhost"),
        pg.user,
      );
      expect((await urlProblems(config))[0]).toContain(
        "sslmode=verify-full: the server's certificate is not for host=localhost",
      );
      expect(
        await urlProblems({
          ...config,
          "connection.url": pgUrl(`sslmode=verify-ca&sslrootcert=${files["ca.pem"]}`, "localhost"),
        }),
      ).toEqual([]);
    });

    test("verify-full with a client certificate (encrypted PKCS8 DER key): rows arrive over connections the server saw encrypted, with the certificate", async () => {
      const url = pgUrl(
        `sslmode=verify-full&sslrootcert=${files["ca.pem"]}&sslcert=${files["client.pem"]}&sslkey=${files["client.pk8"]}&sslpassword=${KEY_PASSWORD}`,
      );
      await sinksRows("pg_mutual", url, CERT_USER, () => pg.psql(`SELECT count(*) FROM pg_mutual`));
      const connections = pg
        .psql(
          `SELECT s.ssl, s.client_dn FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.usename = '${CERT_USER}'`,
        )
        .split("\n")
        .filter(Boolean);
      expect(connections.length).toBeGreaterThan(0);
      expect(connections.every((line) => line === `t|/CN=${CERT_USER}`)).toBe(true);
    });

    test("without TLS parameters the JDBC driver's default, prefer, uses TLS; sslmode=disable cannot get in", async () => {
      const config = sinkConfig("pg_default", pgUrl(""), pg.user);
      expect(await urlProblems(config)).toEqual([]);
      expect((await urlProblems({ ...config, "connection.url": pgUrl("sslmode=disable") }))[0]).toContain(
        "no encryption",
      );
    });
  });

  describe("MariaDB", () => {
    test("sslMode=verify-full with serverSslCert from another CA: refused with the parameter and the TLS error", async () => {
      const config = sinkConfig(
        "maria_wrong_ca",
        mariaUrl(`sslMode=verify-full&serverSslCert=${files["other-ca.pem"]}`),
        maria.user,
      );
      const refused = await api().post("/connectors", { name: config.name, config });
      expect(refused.status).toBe(400);
      expect((refused.body as { message: string }).message).toMatch(
        /sslMode=verify-full: the server's certificate is not signed by a CA in serverSslCert \(\S+other-ca\.pem\): \w+/,
      );
      // MySQL Connector/J's names, against the same server.
      const connectorJ = mariaUrl(
        `sslMode=VERIFY_CA&trustCertificateKeyStoreUrl=file:${files["other-ca.pem"]}&trustCertificateKeyStoreType=PEM`,
        "127.0.0.1",
        "mysql",
      );
      expect((await urlProblems({ ...config, "connection.url": connectorJ }))[0]).toContain(
        "sslMode=VERIFY_CA: the server's certificate is not signed by a CA in trustCertificateKeyStoreUrl",
      );
    });

    test("sslMode=verify-full to a host name the certificate is not for: refused; verify-ca to it is not", async () => {
      const config = sinkConfig(
        "maria_wrong_host",
        mariaUrl(`sslMode=verify-full&serverSslCert=${files["ca.pem"]}`, "localhost"),
        maria.user,
      );
      expect((await urlProblems(config))[0]).toContain(
        "sslMode=verify-full: the server's certificate is not for connection.url host=localhost",
      );
      expect(
        await urlProblems({
          ...config,
          "connection.url": mariaUrl(`sslMode=verify-ca&serverSslCert=${files["ca.pem"]}`, "localhost"),
        }),
      ).toEqual([]);
    });

    test("verify-full with a client certificate from keyStore: rows arrive over connections the server saw encrypted", async () => {
      const url = mariaUrl(
        `sslMode=verify-full&serverSslCert=${files["ca.pem"]}&keyStore=${files["client.p12"]}&keyStoreType=PKCS12&keyStorePassword=${STORE_PASSWORD}`,
      );
      await sinksRows("maria_mutual", url, CERT_USER, () => maria.query("SELECT count(*) FROM maria_mutual"));
      const ciphers = maria
        .query(
          `SELECT s.VARIABLE_VALUE FROM performance_schema.status_by_thread s JOIN performance_schema.threads t USING (THREAD_ID) WHERE t.PROCESSLIST_USER = '${CERT_USER}' AND s.VARIABLE_NAME = 'Ssl_cipher'`,
        )
        .split("\n")
        .filter(Boolean);
      expect(ciphers.length).toBeGreaterThan(0);
      expect(ciphers.every((cipher) => cipher.startsWith("TLS_"))).toBe(true);
    });

    test("MariaDB's default (disable) cannot get in; sslMode=trust and Connector/J's default (PREFERRED) can", async () => {
      const config = sinkConfig("maria_default", mariaUrl(""), maria.user);
      expect((await urlProblems(config))[0]).toContain("Could not connect to database.");
      expect(await urlProblems({ ...config, "connection.url": mariaUrl("sslMode=trust") })).toEqual([]);
      expect(await urlProblems({ ...config, "connection.url": mariaUrl("", "127.0.0.1", "mysql") })).toEqual([]);
    });
  });
});
