// The TLS parameters of JDBC URLs, read as each URL's driver reads them: the PostgreSQL JDBC driver's
// (ssl, sslmode, sslrootcert, sslcert, sslkey, sslpassword, sslfactory), MySQL Connector/J's (sslMode,
// the older useSSL/requireSSL/verifyServerCertificate, trust and client certificate key stores) and
// MariaDB Connector/J's (sslMode, the older useSsl, serverSslCert, keyStore). The files are read here,
// so what cannot be honoured fails the configuration on connection.url, naming the parameter.
import { fileURLToPath } from "node:url";
import { postgresTls, SSL_MODES, type PostgresTls, type SslMode } from "../../platform/postgres-tls.ts";
import { ConfigError } from "../../platform/settings.ts";
import {
  readCertificateFile,
  readKeyStoreFile,
  readTrustStoreFile,
  type ServerVerification,
} from "../../platform/tls.ts";

/** TLS to MySQL or MariaDB as mysql2 takes it, with what chose it for messages. */
export interface MySqlTls extends ServerVerification {
  /** plain: never TLS; preferred: TLS when the server offers it; required: TLS or no connection. */
  readonly use: "plain" | "preferred" | "required";
  /** The URL parameters that chose this, e.g. `sslMode=VERIFY_CA`. */
  readonly requestedBy: string;
}

export const PLAIN_MYSQL: MySqlTls = { use: "plain", verify: "none", caSource: "", requestedBy: "sslMode=DISABLED" };

/** The URL's parameters: PostgreSQL's names are case-sensitive, MySQL's and MariaDB's are not. */
export class UrlParameters {
  private readonly folded = new Map<string, string>();
  constructor(private readonly params: URLSearchParams) {
    for (const [key, value] of params) this.folded.set(key.toLowerCase(), value);
  }
  exact(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }
  any(...names: string[]): string | undefined {
    for (const name of names) {
      const value = this.folded.get(name.toLowerCase());
      if (value !== undefined) return value;
    }
    return undefined;
  }
}

/** A ConfigError on connection.url about one of its parameters (the URL itself may hold a password). */
function urlProblem(parameter: string, value: string, problem: string): ConfigError {
  return new ConfigError("connection.url", `${parameter}=${value}`, `${parameter}: ${problem}`);
}

/** Re-words a ConfigError about a parameter named in `setting` as one on connection.url. */
function onUrl<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigError && err.setting !== "connection.url")
      throw urlProblem(err.setting, err.value, err.allowed);
    throw err;
  }
}

const PG_NAMES = {
  mode: "sslmode",
  rootCert: "sslrootcert",
  cert: "sslcert",
  key: "sslkey",
  password: "sslpassword",
  factory: "sslfactory",
  host: "host",
};

/**
 * The PostgreSQL JDBC driver's reading: sslmode when given; otherwise `ssl` (present without a value,
 * or true) means verify-full, and its absence prefer. Certificates are checked only in the verify
 * modes, against sslrootcert (default ~/.postgresql/root.crt).
 */
export function pgjdbcTls(params: UrlParameters): PostgresTls {
  const given = params.exact("sslmode");
  const ssl = params.exact("ssl");
  let mode: SslMode;
  if (given !== undefined) {
    const match = SSL_MODES.find((m) => m === given.toLowerCase());
    if (!match) throw urlProblem("sslmode", given, `allowed values are ${SSL_MODES.join(", ")}`);
    mode = match;
  } else {
    mode = ssl === "" || ssl?.toLowerCase() === "true" ? "verify-full" : "prefer";
  }
  for (const unsupported of ["sslhostnameverifier", "sslpasswordcallback"]) {
    const value = params.exact(unsupported);
    if (value)
      throw urlProblem(
        unsupported,
        value,
        "Sluice cannot load Java classes; leave it out (verify-full checks host names itself)",
      );
  }
  const negotiation = params.exact("sslNegotiation");
  if (negotiation && negotiation.toLowerCase() !== "postgres")
    throw urlProblem("sslNegotiation", negotiation, "only postgres (an SSLRequest first) is supported");
  const get = (name: string) => params.exact(name) ?? "";
  return onUrl(() =>
    postgresTls(
      {
        mode,
        rootCert: get("sslrootcert"),
        cert: get("sslcert"),
        key: get("sslkey"),
        password: get("sslpassword"),
        factory: get("sslfactory"),
      },
      "jdbc",
      PG_NAMES,
    ),
  );
}

/** Connector/J's booleans: true/false, yes/no (any case). */
function connectorJBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (v === "true" || v === "yes") return true;
  if (v === "false" || v === "no") return false;
  throw urlProblem(name, value, "must be true or false");
}

const MYSQL_MODES = ["DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"] as const;

/**
 * MySQL Connector/J's reading: sslMode (default PREFERRED) or, when it is not given, the older
 * useSSL=false (DISABLED), verifyServerCertificate=true (VERIFY_CA), requireSSL=true (REQUIRED). The
 * verify modes check the chain against trustCertificateKeyStoreUrl, else the system's CAs (unless
 * fallbackToSystemTrustStore=false).
 */
export function connectorJTls(params: UrlParameters): MySqlTls {
  const given = params.any("sslMode");
  let mode: (typeof MYSQL_MODES)[number];
  let requestedBy: string;
  if (given !== undefined) {
    const match = MYSQL_MODES.find((m) => m === given.toUpperCase());
    if (!match) throw urlProblem("sslMode", given, `allowed values are ${MYSQL_MODES.join(", ")}`);
    [mode, requestedBy] = [match, `sslMode=${given}`];
  } else {
    const useSsl = connectorJBoolean("useSSL", params.any("useSSL"));
    const verify = connectorJBoolean("verifyServerCertificate", params.any("verifyServerCertificate"));
    const require = connectorJBoolean("requireSSL", params.any("requireSSL"));
    if (useSsl === false) [mode, requestedBy] = ["DISABLED", "useSSL=false"];
    else if (verify === true) [mode, requestedBy] = ["VERIFY_CA", "verifyServerCertificate=true"];
    else if (require === true) [mode, requestedBy] = ["REQUIRED", "requireSSL=true"];
    else [mode, requestedBy] = ["PREFERRED", "sslMode=PREFERRED (the default)"];
  }
  if (mode === "DISABLED") return { ...PLAIN_MYSQL, requestedBy };
  const client = keyStore(
    params,
    ["clientCertificateKeyStoreUrl"],
    ["clientCertificateKeyStoreType"],
    ["clientCertificateKeyStorePassword"],
    [],
  );
  const use = mode === "PREFERRED" ? "preferred" : "required";
  if (mode === "PREFERRED" || mode === "REQUIRED") return { use, verify: "none", caSource: "", requestedBy, ...client };
  const verify = mode === "VERIFY_IDENTITY" ? "full" : "chain";
  const url = params.any("trustCertificateKeyStoreUrl");
  if (url) {
    const path = storePath("trustCertificateKeyStoreUrl", url);
    const type = (params.any("trustCertificateKeyStoreType") || "JKS").toUpperCase();
    const ca = onUrl(() =>
      readTrustStoreFile(path, type, params.any("trustCertificateKeyStorePassword") ?? "", {
        location: "trustCertificateKeyStoreUrl",
        type: "trustCertificateKeyStoreType",
      }),
    );
    return { use, verify, ca, caSource: `trustCertificateKeyStoreUrl (${path})`, requestedBy, ...client };
  }
  if (connectorJBoolean("fallbackToSystemTrustStore", params.any("fallbackToSystemTrustStore")) === false) {
    throw urlProblem(
      "sslMode",
      mode,
      "verifying the server needs trustCertificateKeyStoreUrl when fallbackToSystemTrustStore=false",
    );
  }
  return { use, verify, caSource: "the system's trusted CAs", requestedBy, ...client };
}

/** MariaDB's booleans: true/1/empty, false/0. */
function mariadbIsSet(value: string | undefined): boolean {
  return value !== undefined && (value === "" || value === "1" || value.toLowerCase() === "true");
}

const MARIADB_MODES: Record<string, "disable" | "trust" | "verify-ca" | "verify-full"> = {
  disable: "disable",
  disabled: "disable",
  "0": "disable",
  false: "disable",
  trust: "trust",
  required: "trust",
  "verify-ca": "verify-ca",
  verify_ca: "verify-ca",
  "verify-full": "verify-full",
  verify_full: "verify-full",
  verify_identity: "verify-full",
  "1": "verify-full",
  true: "verify-full",
};

/**
 * MariaDB Connector/J's reading: sslMode (default disable; trust encrypts without checks), overridden
 * by the older useSsl/useSSL=true (verify-full, or trust with trustServerCertificate, verify-ca with
 * disableSslHostnameVerification). The verify modes check the chain against serverSslCert (a file or
 * the PEM itself), else trustStore, else the system's CAs.
 */
export function mariadbTls(params: UrlParameters): MySqlTls {
  const given = params.any("sslMode");
  let mode = given === undefined ? "disable" : MARIADB_MODES[given.toLowerCase()];
  if (mode === undefined)
    throw urlProblem("sslMode", given!, "allowed values are disable, trust, verify-ca, verify-full");
  let requestedBy = given === undefined ? "sslMode=disable (the default)" : `sslMode=${given}`;
  if (mariadbIsSet(params.exact("useSsl") ?? params.exact("useSSL"))) {
    const legacy = params.exact("useSsl") !== undefined ? "useSsl" : "useSSL";
    if (mariadbIsSet(params.exact("trustServerCertificate")))
      [mode, requestedBy] = ["trust", `${legacy} with trustServerCertificate`];
    else if (mariadbIsSet(params.exact("disableSslHostnameVerification")))
      [mode, requestedBy] = ["verify-ca", `${legacy} with disableSslHostnameVerification`];
    else [mode, requestedBy] = ["verify-full", legacy];
  }
  if (mode === "disable") return { ...PLAIN_MYSQL, requestedBy };
  const client = keyStore(
    params,
    ["keyStore", "clientCertificateKeyStoreUrl"],
    ["keyStoreType", "clientCertificateKeyStoreType"],
    ["keyStorePassword", "clientCertificateKeyStorePassword"],
    ["keyPassword"],
  );
  if (mode === "trust") return { use: "required", verify: "none", caSource: "", requestedBy, ...client };
  const verify = mode === "verify-full" ? "full" : "chain";
  const serverCert = params.any("serverSslCert");
  if (serverCert) {
    if (serverCert.startsWith("-----BEGIN")) {
      const ca = [...serverCert.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map(
        (m) => `${m[0]}\n`,
      );
      if (ca.length === 0) throw urlProblem("serverSslCert", "(PEM)", "holds no PEM certificate");
      return { use: "required", verify, ca, caSource: "serverSslCert", requestedBy, ...client };
    }
    const path = storePath("serverSslCert", serverCert);
    return {
      use: "required",
      verify,
      ca: onUrl(() => readCertificateFile(path, "serverSslCert")),
      caSource: `serverSslCert (${path})`,
      requestedBy,
      ...client,
    };
  }
  const trustStore = params.any("trustStore");
  if (trustStore) {
    const path = storePath("trustStore", trustStore);
    const type = (params.any("trustStoreType") || "JKS").toUpperCase();
    const ca = onUrl(() =>
      readTrustStoreFile(path, type, params.any("trustStorePassword") ?? "", {
        location: "trustStore",
        type: "trustStoreType",
      }),
    );
    return { use: "required", verify, ca, caSource: `trustStore (${path})`, requestedBy, ...client };
  }
  return { use: "required", verify, caSource: "the system's trusted CAs", requestedBy, ...client };
}

/** A store given as a path or a file: URL; other schemes (classpath:, http:) cannot be read. */
function storePath(parameter: string, value: string): string {
  if (/^file:/i.test(value)) {
    try {
      return fileURLToPath(value.replace(/^file:(?!\/\/)/i, "file://"));
    } catch {
      throw urlProblem(parameter, value, "not a file: URL Sluice can read");
    }
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(value))
    throw urlProblem(parameter, value, "only files (a path or a file: URL) can be read");
  return value;
}

/** The client certificate key store named by the first of `locations` given (PKCS12 or PEM; JKS refused). */
function keyStore(
  params: UrlParameters,
  locations: string[],
  types: string[],
  passwords: string[],
  keyPasswords: string[],
): { cert?: string; key?: string } {
  const location = locations.find((name) => params.any(name));
  if (!location) return {};
  const path = storePath(location, params.any(location)!);
  const typeName = types[locations.indexOf(location)]!;
  const type = (params.any(typeName) || "JKS").toUpperCase();
  const password = params.any(passwords[locations.indexOf(location)]!) ?? "";
  // A PEM store's key may be encrypted: with its own password, else the store's.
  const keyPassword = (keyPasswords.length > 0 ? params.any(...keyPasswords) : undefined) ?? password;
  const store = onUrl(() => readKeyStoreFile(path, type, password, keyPassword, { location, type: typeName }));
  return { cert: store.chain.join(""), key: store.key };
}
