import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { capturesColumn, capturesTable, parsePostgresCdcConfig } from "#src/connectors/postgres-cdc/config.ts";
import { certificateAuthority } from "../../../fixtures/certificates.ts";

const base = { "database.hostname": "db", "database.user": "cdc", "database.dbname": "app" };

describe("postgres-cdc settings", () => {
  test("money.fraction.digits: Debezium's 2 by default, read as given, never negative", () => {
    const withPrefix = { ...base, "topic.prefix": "p" };
    expect(parsePostgresCdcConfig(withPrefix).moneyFractionDigits).toBe(2);
    expect(parsePostgresCdcConfig({ ...withPrefix, "money.fraction.digits": "4" }).moneyFractionDigits).toBe(4);
    expect(() => parsePostgresCdcConfig({ ...withPrefix, "money.fraction.digits": "-1" })).toThrow(
      "money.fraction.digits",
    );
  });
  test("Debezium's defaults, and database.server.name for topic.prefix", () => {
    const config = parsePostgresCdcConfig({ ...base, "database.server.name": "legacy" });
    expect(config).toMatchObject({
      port: 5432,
      snapshotFetchSize: 10240,
      password: "",
      topicPrefix: "legacy",
      slotName: "debezium",
      publicationName: "dbz_publication",
      publicationAutocreate: "all_tables",
      snapshotMode: "initial",
      tombstonesOnDelete: true,
    });
    expect([...config.skippedOperations]).toEqual(["t"]);
    expect([
      ...parsePostgresCdcConfig({ ...base, "topic.prefix": "p", "skipped.operations": "none" }).skippedOperations,
    ]).toEqual([]);
  });

  test("skipped.operations, when given, narrows what a publication Sluice creates publishes (as Debezium)", () => {
    const published = (skipped?: string) =>
      parsePostgresCdcConfig({
        ...base,
        "topic.prefix": "p",
        ...(skipped === undefined ? {} : { "skipped.operations": skipped }),
      }).publishedOperations;
    expect([published(), published("none"), published("")]).toEqual([null, null, null]);
    expect([published("t"), published("u,T"), published("c,u,d,t")]).toEqual([
      "insert,update,delete",
      "insert,delete",
      "",
    ]);
  });

  test("column rules and slot.failover are read; the families by their names", () => {
    const config = parsePostgresCdcConfig({
      ...base,
      "topic.prefix": "p",
      "slot.failover": "true",
      "column.mask.with.3.chars": "public.t.a",
      "column.mask.hash.v2.SHA-256.with.salt.x.y": "public.t.b",
      "message.key.columns": "public.t:a",
    });
    expect(config.slotFailover).toBe(true);
    expect(config.columnRules.entries.map((e) => e.rule.kind)).toEqual(["mask", "hash"]);
    expect(config.columnRules.keyColumns).toHaveLength(1);
    expect(() => parsePostgresCdcConfig({ ...base, "topic.prefix": "p", "message.key.columns": "public.t" })).toThrow(
      "message.key.columns",
    );
  });

  test("heartbeat and transaction topics by Debezium's naming settings", () => {
    const p = { ...base, "topic.prefix": "p" };
    expect(parsePostgresCdcConfig(p)).toMatchObject({
      heartbeatTopic: "__debezium-heartbeat.p",
      heartbeatActionQuery: null,
      transactionTopic: null,
    });
    expect(
      parsePostgresCdcConfig({
        ...p,
        "topic.heartbeat.prefix": "beats",
        "heartbeat.action.query": " UPDATE hb SET ts = now() ",
        "provide.transaction.metadata": "true",
        "topic.transaction": "txs",
      }),
    ).toMatchObject({
      heartbeatTopic: "beats.p",
      heartbeatActionQuery: "UPDATE hb SET ts = now()",
      transactionTopic: "p.txs",
    });
    expect(
      parsePostgresCdcConfig({ ...p, "topic.heartbeat.name": "shared", "provide.transaction.metadata": "true" }),
    ).toMatchObject({ heartbeatTopic: "shared", transactionTopic: "p.transaction" });
  });

  test("bad values fail with the setting's name", () => {
    expect(() => parsePostgresCdcConfig({ ...base, "topic.prefix": "p", "snapshot.mode": "sometimes" })).toThrow(
      "snapshot.mode",
    );
    expect(() =>
      parsePostgresCdcConfig({ "database.hostname": "db", "database.user": "cdc", "topic.prefix": "p" }),
    ).toThrow("database.dbname");
    // Required, as Debezium's (no default user).
    expect(() =>
      parsePostgresCdcConfig({ "database.hostname": "db", "database.dbname": "app", "topic.prefix": "p" }),
    ).toThrow("database.user");
  });

  test("include and exclude lists are anchored regular expressions", () => {
    const { filters } = parsePostgresCdcConfig({
      ...base,
      "topic.prefix": "p",
      "table.include.list": "public\\.item.*,inv\\.stock",
      "column.exclude.list": "public\\.items\\.secret",
    });
    expect(capturesTable(filters, "public", "items")).toBe(true);
    expect(capturesTable(filters, "inv", "stock")).toBe(true);
    expect(capturesTable(filters, "inv", "stock_old")).toBe(false);
    expect(capturesTable(filters, "other", "items")).toBe(false);
    expect(capturesColumn(filters, "public", "items", "secret")).toBe(false);
    expect(capturesColumn(filters, "public", "items", "secret2")).toBe(true);
  });
});

describe("postgres-cdc TLS settings, with libpq's meaning", () => {
  const home = mkdtempSync(join(tmpdir(), "sluice-cdc-home-"));
  const savedHome = process.env.HOME;
  afterAll(() => {
    process.env.HOME = savedHome;
    rmSync(home, { recursive: true, force: true });
  });
  const ca = certificateAuthority("Unit CA").cert;
  const caFile = join(home, "ca.pem");
  writeFileSync(caFile, ca);
  const tls = (extra: Record<string, string>) => parsePostgresCdcConfig({ ...base, "topic.prefix": "p", ...extra }).tls;

  test("Debezium's default is prefer, checking nothing without a root certificate", () => {
    process.env.HOME = join(home, "empty");
    expect(tls({})).toMatchObject({ mode: "prefer", verify: "none" });
    expect(tls({ "database.sslmode": "require" })).toMatchObject({ mode: "require", verify: "none" });
    expect(tls({ "database.sslmode": "disable", "database.sslrootcert": caFile })).toMatchObject({ verify: "none" });
  });

  test("a root certificate file, given or at ~/.postgresql/root.crt, makes require check the chain as verify-ca", () => {
    process.env.HOME = join(home, "empty");
    expect(tls({ "database.sslmode": "require", "database.sslrootcert": caFile })).toMatchObject({
      verify: "chain",
      ca: [ca],
      caSource: `database.sslrootcert (${caFile})`,
    });
    expect(tls({ "database.sslmode": "verify-full", "database.sslrootcert": caFile })).toMatchObject({
      verify: "full",
    });
    expect(() => tls({ "database.sslmode": "verify-ca" })).toThrow(
      /database\.sslrootcert.*root certificate file ".*root\.crt" does not exist/,
    );
    const withRoot = join(home, "with-root");
    mkdirSync(join(withRoot, ".postgresql"), { recursive: true });
    writeFileSync(join(withRoot, ".postgresql", "root.crt"), ca);
    process.env.HOME = withRoot;
    expect(tls({ "database.sslmode": "require" })).toMatchObject({ verify: "chain", ca: [ca] });
  });

  test("sslrootcert=system trusts the system's CAs, with verify-full only; sslfactory's classes", () => {
    expect(tls({ "database.sslmode": "verify-full", "database.sslrootcert": "system" })).toMatchObject({
      verify: "full",
      caSource: "the system's trusted CAs",
    });
    expect(() => tls({ "database.sslmode": "verify-ca", "database.sslrootcert": "system" })).toThrow(
      "database.sslmode",
    );
    expect(
      tls({
        "database.sslmode": "require",
        "database.sslrootcert": caFile,
        "database.sslfactory": "org.postgresql.ssl.NonValidatingFactory",
      }),
    ).toMatchObject({ verify: "none" });
    expect(() => tls({ "database.sslfactory": "com.example.Factory" })).toThrow("database.sslfactory");
    expect(() => tls({ "database.sslmode": "sometimes" })).toThrow("database.sslmode");
  });
});
