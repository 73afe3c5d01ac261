// The TLS parameters of JDBC URLs as each driver reads them: the PostgreSQL JDBC driver's defaults
// (prefer; `ssl` alone is verify-full), Connector/J's sslMode and its older useSSL/requireSSL/
// verifyServerCertificate, MariaDB's sslMode and its older useSsl; trust and key stores read from
// files, JKS and unreadable files refused by the parameter's name.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConnectionUrl } from "#src/connectors/jdbc-sink/connection-url.ts";
import { certificateAuthority, pkcs12 } from "../../../fixtures/certificates.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-jdbc-tls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ca = certificateAuthority("Test CA");
const client = ca.issue("writer", "client");
const caFile = join(dir, "ca.pem");
writeFileSync(caFile, ca.cert);
const p12File = join(dir, "client.p12");
writeFileSync(p12File, pkcs12(client, [ca.cert], "store-pass"));
const jksFile = join(dir, "trust.jks");
writeFileSync(jksFile, Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]));

const pg = (query: string) => parseConnectionUrl(`jdbc:postgresql://db.local/shop?${query}`).postgresTls!;
const mysql = (query: string) => parseConnectionUrl(`jdbc:mysql://db.local/shop?${query}`).mysqlTls!;
const mariadb = (query: string) => parseConnectionUrl(`jdbc:mariadb://db.local/shop?${query}`).mysqlTls!;

describe("PostgreSQL JDBC driver parameters", () => {
  test("without sslmode: prefer, but `ssl` (true, or without a value) is verify-full", () => {
    expect(pg("")).toMatchObject({ mode: "prefer", verify: "none" });
    expect(pg("ssl=false")).toMatchObject({ mode: "prefer" });
    expect(pg(`ssl=true&sslrootcert=${caFile}`)).toMatchObject({ mode: "verify-full", verify: "full", ca: [ca.cert] });
    expect(pg(`ssl&sslrootcert=${caFile}`)).toMatchObject({ mode: "verify-full", verify: "full" });
  });
  test("verify-ca and verify-full check against sslrootcert; require does not, even with one", () => {
    expect(pg(`sslmode=verify-ca&sslrootcert=${caFile}`)).toMatchObject({
      verify: "chain",
      caSource: `sslrootcert (${caFile})`,
    });
    expect(pg(`sslmode=require&sslrootcert=${caFile}`)).toMatchObject({ verify: "none" });
    expect(() => pg(`sslmode=verify-full&sslrootcert=${join(dir, "missing.pem")}`)).toThrow(
      /sslrootcert: root certificate file .*missing\.pem" does not exist/,
    );
  });
  test("a PKCS12 sslkey holds the client certificate too; its password is sslpassword", () => {
    const tls = pg(`sslmode=require&sslkey=${p12File}&sslpassword=store-pass`);
    expect(tls.cert).toContain("BEGIN CERTIFICATE");
    expect(tls.key).toContain("BEGIN PRIVATE KEY");
    expect(() => pg(`sslmode=require&sslkey=${p12File}&sslpassword=wrong`)).toThrow("sslkey");
  });
  test("what cannot be honoured is refused by name", () => {
    expect(() => pg("sslmode=verify-everything")).toThrow(
      "sslmode: allowed values are disable, allow, prefer, require, verify-ca, verify-full",
    );
    expect(() => pg("sslmode=verify-full&sslfactory=org.postgresql.ssl.NonValidatingFactory")).toThrow(
      "contradicts sslmode=verify-full",
    );
    expect(() => pg("sslhostnameverifier=com.example.Verifier")).toThrow("sslhostnameverifier");
    expect(() => pg("sslNegotiation=direct")).toThrow("sslNegotiation");
    expect(pg("sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory")).toMatchObject({ verify: "none" });
    expect(pg("sslmode=require&sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory")).toMatchObject({
      verify: "chain",
      caSource: "the system's trusted CAs",
    });
  });
});

describe("MySQL Connector/J parameters", () => {
  test("sslMode, PREFERRED by default", () => {
    expect(mysql("")).toMatchObject({ use: "preferred", verify: "none" });
    expect(mysql("sslMode=DISABLED")).toMatchObject({ use: "plain" });
    expect(mysql("sslMode=required")).toMatchObject({ use: "required", verify: "none" });
    expect(mysql("sslMode=VERIFY_CA")).toMatchObject({
      use: "required",
      verify: "chain",
      caSource: "the system's trusted CAs",
    });
    expect(
      mysql(`sslMode=VERIFY_IDENTITY&trustCertificateKeyStoreUrl=file:${caFile}&trustCertificateKeyStoreType=PEM`),
    ).toMatchObject({ verify: "full", ca: [ca.cert] });
    expect(() => mysql("sslMode=VERIFY_FULL")).toThrow(
      "sslMode: allowed values are DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY",
    );
  });
  test("the older useSSL, requireSSL and verifyServerCertificate when sslMode is not given", () => {
    expect(mysql("useSSL=false")).toMatchObject({ use: "plain" });
    expect(mysql("useSSL=true")).toMatchObject({ use: "preferred" });
    expect(mysql("useSSL=true&requireSSL=true")).toMatchObject({ use: "required", verify: "none" });
    expect(mysql("useSSL=true&verifyServerCertificate=true")).toMatchObject({
      verify: "chain",
      requestedBy: "verifyServerCertificate=true",
    });
    expect(mysql("sslMode=REQUIRED&useSSL=false")).toMatchObject({ use: "required" });
  });
  test("key stores: PKCS12 read, JKS refused by the parameter's name", () => {
    const tls = mysql(
      `sslMode=REQUIRED&clientCertificateKeyStoreUrl=file://${p12File}&clientCertificateKeyStoreType=PKCS12&clientCertificateKeyStorePassword=store-pass`,
    );
    expect(tls.cert).toContain("BEGIN CERTIFICATE");
    expect(() => mysql(`sslMode=VERIFY_CA&trustCertificateKeyStoreUrl=file:${jksFile}`)).toThrow(
      /trustCertificateKeyStoreUrl: JKS key stores are not supported/,
    );
    expect(() => mysql("sslMode=VERIFY_CA&trustCertificateKeyStoreUrl=classpath:trust.p12")).toThrow("only files");
    expect(() => mysql("sslMode=VERIFY_CA&fallbackToSystemTrustStore=false")).toThrow(
      "needs trustCertificateKeyStoreUrl",
    );
  });
});

describe("MariaDB Connector/J parameters", () => {
  test("sslMode, disable by default", () => {
    expect(mariadb("")).toMatchObject({ use: "plain" });
    expect(mariadb("sslMode=trust")).toMatchObject({ use: "required", verify: "none" });
    expect(mariadb(`sslMode=verify-ca&serverSslCert=${caFile}`)).toMatchObject({ verify: "chain", ca: [ca.cert] });
    expect(mariadb("sslmode=VERIFY_IDENTITY")).toMatchObject({ verify: "full", caSource: "the system's trusted CAs" });
    expect(mariadb(`sslMode=verify-full&serverSslCert=${encodeURIComponent(ca.cert)}`)).toMatchObject({
      verify: "full",
      caSource: "serverSslCert",
    });
    expect(() => mariadb("sslMode=prefer")).toThrow(
      "sslMode: allowed values are disable, trust, verify-ca, verify-full",
    );
  });
  test("the older useSsl overrides sslMode: verify-full, trust with trustServerCertificate, verify-ca without host name checks", () => {
    expect(mariadb("useSsl=true&sslMode=disable")).toMatchObject({ use: "required", verify: "full" });
    expect(mariadb("useSSL&trustServerCertificate=true")).toMatchObject({ verify: "none", use: "required" });
    expect(mariadb("useSsl=1&disableSslHostnameVerification=1")).toMatchObject({ verify: "chain" });
  });
  test("keyStore (and Connector/J's clientCertificateKeyStoreUrl alias) for the client certificate", () => {
    expect(mariadb(`sslMode=trust&keyStore=${p12File}&keyStoreType=PKCS12&keyStorePassword=store-pass`).key).toContain(
      "BEGIN PRIVATE KEY",
    );
    expect(
      mariadb(`sslMode=trust&clientCertificateKeyStoreUrl=file:${p12File}&clientCertificateKeyStorePassword=store-pass`)
        .cert,
    ).toContain("BEGIN CERTIFICATE");
  });
});
