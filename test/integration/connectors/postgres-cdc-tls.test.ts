// TLS between the PostgreSQL CDC connector and a real PostgreSQL that lets TCP clients in only over
// TLS (`hostssl`), run through a real worker: database.sslmode with libpq's meaning, certificate checks
// that refuse a server certificate from another CA or for another host (naming the setting), client
// certificates with an encrypted key, and pg_stat_ssl showing that the connector's SQL connections
// and its walsender really are encrypted.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certificateAuthority } from "../../fixtures/certificates.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { cdcConnection, startPostgres, type PostgresServer } from "../../fixtures/postgres.ts";
import { waitFor } from "../../fixtures/wait.ts";

const CERT_USER = "cert_user";
const KEY_PASSWORD = "key-secret";

describe("PostgreSQL CDC connector over TLS", () => {
  let pg: PostgresServer;
  let worker: TestConnect;
  let dir: string;
  const files: Record<string, string> = {};
  const run = Date.now().toString(36);
  const nameOf = (what: string) => `t${run}_${what}`;
  const started: string[] = [];
  const api = () => connectClient(worker.url);
  const json = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter.schemas.enable": "false",
  };

  beforeAll(async () => {
    const ca = certificateAuthority("Database CA");
    const other = certificateAuthority("Another CA");
    // For 127.0.0.1 only: `localhost` reaches the same server but is not the certificate's name.
    const server = ca.issue("postgres server", "server", { ips: ["127.0.0.1"] });
    const client = ca.issue(CERT_USER, "client");
    pg = await startPostgres({
      tls: {
        ...server,
        ca: ca.cert,
        hba: [
          `hostssl all ${CERT_USER} 127.0.0.1/32 cert`,
          `hostssl replication ${CERT_USER} 127.0.0.1/32 cert`,
          "hostssl all all 127.0.0.1/32 trust",
          "hostssl replication all 127.0.0.1/32 trust",
        ],
      },
    });
    pg.psql(`CREATE ROLE ${CERT_USER} LOGIN REPLICATION SUPERUSER`);
    dir = mkdtempSync(join(tmpdir(), "sluice-cdc-tls-"));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      files[name] = join(dir, name);
    };
    file("ca.pem", ca.cert);
    file("other-ca.pem", other.cert);
    file("client.pem", client.cert);
    // PKCS1 (BEGIN RSA PRIVATE KEY), encrypted the traditional OpenSSL way, as `openssl genrsa -aes256` writes it.
    file(
      "client-key.pem",
      createPrivateKey(client.key)
        .export({ type: "pkcs1", format: "pem", cipher: "aes-256-cbc", passphrase: KEY_PASSWORD })
        .toString(),
    );
    worker = await startTestConnect("embedded", json);
  }, 180_000);
  afterEach(async () => {
    for (const name of started.splice(0)) {
      await api().delete(`/connectors/${name}`);
      await waitFor(`slot ${name} dropped`, () => {
        pg.psql(
          `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${name}' AND NOT active`,
        );
        return pg.psql(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${name}'`) === "0";
      });
    }
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const configOf = (name: string, extra: Record<string, string>): Record<string, string> => ({
    name,
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    ...cdcConnection(pg),
    "topic.prefix": name,
    "slot.name": name,
    "table.include.list": `public.${name}`,
    ...extra,
  });
  /** The error messages validation gives, by setting. */
  const problems = async (config: Record<string, string>): Promise<Record<string, string[]>> => {
    const r = await api().put("/connector-plugins/PostgresConnector/config/validate", config);
    expect(r.status).toBe(200);
    const infos = r.body as { configs: { value: { name: string; errors: string[] } }[] };
    return Object.fromEntries(
      infos.configs.filter((c) => c.value.errors.length > 0).map((c) => [c.value.name, c.value.errors]),
    );
  };
  /** Creates the table, starts the connector, and waits for a row inserted afterwards to arrive. */
  const streamsRow = async (name: string, extra: Record<string, string>) => {
    pg.psql(`CREATE TABLE ${name} (id int PRIMARY KEY, note text); INSERT INTO ${name} VALUES (1, 'snapshot')`);
    const created = await api().post("/connectors", {
      name,
      config: configOf(name, { "snapshot.mode": "initial", ...extra }),
    });
    expect(created.status).toBe(201);
    started.push(name);
    await api().waitForState(name, "RUNNING", 1);
    pg.psql(`INSERT INTO ${name} VALUES (2, 'streamed')`);
    const topic = `${name}.public.${name}`;
    return waitFor(
      `the streamed row on ${topic}`,
      async () => {
        if (!(await worker.connect.broker.describeTopic(topic))) return undefined;
        const values = (await worker.connect.broker.fetch(topic, 0, 0)).map(
          (r) => JSON.parse(Buffer.from(r.value!).toString("utf8")) as { op: string; after: { id: number } },
        );
        return values.some((v) => v.op === "c" && v.after.id === 2) ? values : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  };
  /** The TCP connections of `user` by backend type, with whether each is encrypted and its client certificate's DN. */
  const connectionsOf = (user: string) =>
    pg
      .psql(
        `SELECT a.backend_type, s.ssl, coalesce(s.client_dn, '') FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.usename = '${user}' AND a.client_addr IS NOT NULL ORDER BY 1, 2`,
      )
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split("|"));

  test("verify-full with a root certificate from a CA that did not sign the server's: refused with the setting and the TLS error", async () => {
    const name = nameOf("wrong_ca");
    const config = configOf(name, {
      "database.sslmode": "verify-full",
      "database.sslrootcert": files["other-ca.pem"]!,
    });
    const refused = await api().post("/connectors", { name, config });
    expect(refused.status).toBe(400);
    const message = (refused.body as { message: string }).message;
    // The setting, the file, then the TLS library's own words.
    expect(message).toMatch(
      /database\.sslmode=verify-full: the server's certificate is not signed by a CA in database\.sslrootcert \(\S+other-ca\.pem\): \w+/,
    );
    expect((await api().get(`/connectors/${name}`)).status).toBe(404);
    // verify-ca checks the chain just the same.
    const verifyCa = await problems({ ...config, "database.sslmode": "verify-ca" });
    expect(verifyCa["database.hostname"]?.[0]).toContain(
      "database.sslmode=verify-ca: the server's certificate is not signed by a CA in database.sslrootcert",
    );
    // As libpq: require with a root certificate file checks the chain as verify-ca does.
    const require = await problems({ ...config, "database.sslmode": "require" });
    expect(require["database.hostname"]?.[0]).toContain("not signed by a CA in database.sslrootcert");
  });

  test("verify-full to a host name the certificate is not for: refused; verify-ca to the same name is not", async () => {
    const config = configOf(nameOf("wrong_host"), {
      "database.hostname": "localhost",
      "database.sslmode": "verify-full",
      "database.sslrootcert": files["ca.pem"]!,
    });
    const refused = await problems(config);
    expect(refused["database.hostname"]?.[0]).toContain(
      "database.sslmode=verify-full: the server's certificate is not for database.hostname=localhost",
    );
    expect(await problems({ ...config, "database.sslmode": "verify-ca" })).toEqual({});
  });

  test("require against a server that takes only TLS: the snapshot and the stream arrive, over encrypted SQL and walsender connections", async () => {
    const name = nameOf("require");
    const events = await streamsRow(name, { "database.sslmode": "require" });
    expect(events.map((e) => `${e.op}:${e.after.id}`)).toEqual(["r:1", "c:2"]);
    const connections = connectionsOf(pg.user);
    expect(connections.some(([type]) => type === "walsender")).toBe(true);
    expect(connections.some(([type]) => type === "client backend")).toBe(true);
    expect(connections.every(([, ssl]) => ssl === "t")).toBe(true);
  });

  test("verify-full with the right CA and a client certificate whose key is encrypted: streams, the server saw the certificate", async () => {
    const name = nameOf("mutual");
    const tls = {
      "database.user": CERT_USER,
      "database.sslmode": "verify-full",
      "database.sslrootcert": files["ca.pem"]!,
      "database.sslcert": files["client.pem"]!,
      "database.sslkey": files["client-key.pem"]!,
      "database.sslpassword": KEY_PASSWORD,
    };
    const events = await streamsRow(name, tls);
    expect(events.map((e) => `${e.op}:${e.after.id}`)).toEqual(["r:1", "c:2"]);
    const connections = connectionsOf(CERT_USER);
    expect(connections.some(([type]) => type === "walsender")).toBe(true);
    expect(connections.every(([, ssl, dn]) => ssl === "t" && dn === `/CN=${CERT_USER}`)).toBe(true);
    // Without the key's password, the key is refused by its setting's name before any connection.
    const withoutPassword = await problems(configOf(name, { ...tls, "database.sslpassword": "" }));
    expect(withoutPassword["database.sslkey"]?.[0]).toContain("the key is encrypted: set database.sslpassword");
    // Without a certificate the server lets this user in by, it refuses the login.
    const withoutCertificate = await problems(
      configOf(name, { ...tls, "database.sslcert": "", "database.sslkey": "" }),
    );
    expect(withoutCertificate["database.hostname"]?.[0]).toContain("connection requires a valid client certificate");
  });

  test("sslmode disable, allow and prefer (the default) against a server that takes only TLS", async () => {
    const config = configOf(nameOf("fallbacks"), {});
    const disabled = await problems({ ...config, "database.sslmode": "disable" });
    expect(disabled["database.hostname"]?.[0]).toContain("no encryption");
    // allow: plain text is refused, then TLS works; prefer (Debezium's default) starts with TLS.
    expect(await problems({ ...config, "database.sslmode": "allow" })).toEqual({});
    expect(await problems(config)).toEqual({});
    // As libpq's prefer: a certificate that fails the root certificate's check sends it on to plain
    // text, which this server refuses; both failures are told.
    const untrusted = await problems({ ...config, "database.sslrootcert": files["other-ca.pem"]! });
    expect(untrusted["database.hostname"]?.[0]).toContain("no encryption");
    expect(untrusted["database.hostname"]?.[0]).toContain(
      "database.sslmode=prefer tried TLS first: database.sslmode=prefer: the server's certificate is not signed by a CA in database.sslrootcert",
    );
  });

  test("settings Sluice cannot honour are refused by name", async () => {
    const config = configOf(nameOf("refused"), {});
    const factory = await problems({ ...config, "database.sslfactory": "com.example.MyFactory" });
    expect(factory["database.sslfactory"]?.[0]).toContain("Sluice cannot load Java classes");
    const nonValidating = await problems({
      ...config,
      "database.sslmode": "verify-full",
      "database.sslfactory": "org.postgresql.ssl.NonValidatingFactory",
    });
    expect(nonValidating["database.sslfactory"]?.[0]).toContain("contradicts database.sslmode=verify-full");
    const system = await problems({ ...config, "database.sslmode": "require", "database.sslrootcert": "system" });
    expect(system["database.sslmode"]?.[0]).toContain("database.sslrootcert=system needs verify-full");
    const missing = await problems({
      ...config,
      "database.sslmode": "verify-ca",
      "database.sslrootcert": join(dir, "none.pem"),
    });
    expect(missing["database.sslrootcert"]?.[0]).toContain("does not exist");
  });
});
