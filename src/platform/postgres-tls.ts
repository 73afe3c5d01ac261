// TLS to PostgreSQL as its clients negotiate it: an SSLRequest on a fresh TCP connection, then a TLS
// handshake whose server certificate is checked as the sslmode asks, with the allow/prefer fallbacks.
// The CDC source (libpq's rules, as Debezium documents them) and the JDBC sink (the PostgreSQL JDBC
// driver's rules) open their sockets here; both clients then speak the protocol over the socket.
import { existsSync } from "node:fs";
import { isIP, Socket } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  checkServerIdentity,
  connect as tlsConnect,
  type ConnectionOptions,
  type PeerCertificate,
  type TLSSocket,
} from "node:tls";
import { handshakeFailure } from "./server-certificate.ts";
import { ConfigError } from "./settings.ts";
import { readCertificateFile, readPkcs12File, readPrivateKeyFile, type ServerVerification } from "./tls.ts";

export const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** How the settings behind a PostgresTls are named, for the messages of its failures. */
export interface PostgresTlsNames {
  readonly mode: string;
  readonly rootCert: string;
  readonly cert: string;
  readonly key: string;
  readonly password: string;
  readonly factory: string;
  readonly host: string;
}

/** What a connection to one server needs to know about TLS, its files already read. */
export interface PostgresTls extends ServerVerification {
  readonly mode: SslMode;
  readonly names: PostgresTlsNames;
}

/** No TLS at all (sslmode=disable). */
export const PLAIN_POSTGRES: PostgresTls = {
  mode: "disable",
  verify: "none",
  caSource: "",
  names: {
    mode: "sslmode",
    rootCert: "sslrootcert",
    cert: "sslcert",
    key: "sslkey",
    password: "sslpassword",
    factory: "sslfactory",
    host: "host",
  },
};

/** The settings as given (file paths, not yet read); empty strings are unset. */
export interface PostgresTlsSettings {
  readonly mode: SslMode;
  readonly rootCert: string;
  readonly cert: string;
  readonly key: string;
  readonly password: string;
  readonly factory: string;
}

/**
 * Whose rules apply. libpq: a root certificate file that exists makes every mode check the chain
 * (require behaves as verify-ca), and `sslrootcert=system` needs verify-full. The JDBC driver checks
 * certificates only in the verify modes, reads .pk8 (PKCS8 DER) or .p12 keys, and its sslfactory can
 * swap the checks.
 */
export type PostgresClientRules = "libpq" | "jdbc";

const NON_VALIDATING_FACTORY = "org.postgresql.ssl.NonValidatingFactory";
const JAVA_DEFAULT_FACTORY = "org.postgresql.ssl.DefaultJavaSSLFactory";
const LIBPQ_FACTORIES = ["org.postgresql.ssl.LibPQFactory", "org.postgresql.ssl.jdbc4.LibPQFactory"];

/** Reads the files the settings name, refusing what cannot be honoured by the setting's name. */
export function postgresTls(
  settings: PostgresTlsSettings,
  rules: PostgresClientRules,
  names: PostgresTlsNames,
): PostgresTls {
  const { mode } = settings;
  if (mode === "disable") return { mode, verify: "none", caSource: "", names };
  // $HOME first, as Node's homedir() does where it reads it at each call.
  const home = join(process.env.HOME || homedir(), ".postgresql");
  const factory = settings.factory.trim();
  if (
    factory !== "" &&
    factory !== NON_VALIDATING_FACTORY &&
    factory !== JAVA_DEFAULT_FACTORY &&
    !LIBPQ_FACTORIES.includes(factory)
  ) {
    throw new ConfigError(
      names.factory,
      factory,
      `Sluice cannot load Java classes; supported: ${[...LIBPQ_FACTORIES, NON_VALIDATING_FACTORY, JAVA_DEFAULT_FACTORY].join(", ")}`,
    );
  }
  const verifyModes = mode === "verify-ca" || mode === "verify-full";
  if (factory === NON_VALIDATING_FACTORY && verifyModes) {
    throw new ConfigError(names.factory, factory, `it checks no certificate, which contradicts ${names.mode}=${mode}`);
  }
  const hostCheck = mode === "verify-full";
  const client = clientMaterial(settings, rules, names, home);
  if (factory === NON_VALIDATING_FACTORY) return { mode, verify: "none", caSource: "", names, ...client };
  if (factory === JAVA_DEFAULT_FACTORY)
    return { mode, verify: hostCheck ? "full" : "chain", caSource: "the system's trusted CAs", names, ...client };

  const rootCert = settings.rootCert.trim();
  if (rootCert === "system") {
    if (rules === "libpq" && mode !== "verify-full")
      throw new ConfigError(
        names.mode,
        mode,
        `${names.rootCert}=system needs verify-full (weaker modes would trust any certificate the system's CAs signed, for any host)`,
      );
    return { mode, verify: hostCheck ? "full" : "chain", caSource: "the system's trusted CAs", names, ...client };
  }
  const rootFile = rootCert !== "" ? rootCert : join(home, "root.crt");
  const checksChain = rules === "libpq" ? verifyModes || existsSync(rootFile) : verifyModes;
  if (!checksChain) return { mode, verify: "none", caSource: "", names, ...client };
  if (!existsSync(rootFile)) {
    throw new ConfigError(
      names.rootCert,
      rootCert,
      `root certificate file "${rootFile}" does not exist: give the CA certificates (PEM) that signed the server's certificate, use the system's trusted CAs with ${names.rootCert}=system, or choose a ${names.mode} that does not verify the server`,
    );
  }
  return {
    mode,
    verify: hostCheck ? "full" : "chain",
    ca: readCertificateFile(rootFile, names.rootCert),
    caSource: `${names.rootCert} (${rootFile})`,
    names,
    ...client,
  };
}

/** The client certificate and key: the named files, else the drivers' default files when they exist. */
function clientMaterial(
  settings: PostgresTlsSettings,
  rules: PostgresClientRules,
  names: PostgresTlsNames,
  home: string,
): { cert?: string; key?: string } {
  const keyPath = settings.key.trim() || join(home, rules === "jdbc" ? "postgresql.pk8" : "postgresql.key");
  if (rules === "jdbc" && /\.(p12|pfx)$/i.test(keyPath) && existsSync(keyPath)) {
    // The JDBC driver's PKCS12 key holds the certificate too; sslpassword opens it.
    const store = readPkcs12File(keyPath, settings.password, names.key);
    return { key: store.key, cert: store.chain.join("") };
  }
  const certPath = settings.cert.trim() || join(home, "postgresql.crt");
  if (!existsSync(certPath)) {
    if (settings.cert.trim() !== "") throw new ConfigError(names.cert, certPath, "the file does not exist");
    return {};
  }
  if (!existsSync(keyPath))
    throw new ConfigError(
      names.key,
      settings.key,
      `a client certificate needs its private key, and "${keyPath}" does not exist`,
    );
  return {
    cert: readCertificateFile(certPath, names.cert).join(""),
    key: readPrivateKeyFile(keyPath, settings.password, names.key, names.password),
  };
}

/** The server refused what TLS needed, or its certificate failed the checks: the message names the setting. */
export class PostgresTlsError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "PostgresTlsError";
  }
}

/** How long a TCP connection and TLS handshake may take (postgres.js's own connect_timeout). */
const CONNECT_TIMEOUT_MS = 30_000;
/** The protocol's SSLRequest code. */
const SSL_REQUEST = 80877103;

/** Whether the socket ended up encrypted. */
function isEncrypted(socket: Socket): boolean {
  return (socket as TLSSocket).encrypted === true;
}

/**
 * A connected socket to the server, TLS-wrapped when `encrypt` (and the server agrees: when it refuses,
 * prefer goes on in plain text, any other mode fails).
 */
async function openPostgresSocket(host: string, port: number, tls: PostgresTls, encrypt: boolean): Promise<Socket> {
  const socket = new Socket();
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      socket.destroy();
      reject(
        Object.assign(new Error(`Connecting to ${host}:${port} timed out after ${CONNECT_TIMEOUT_MS} ms`), {
          code: "CONNECT_TIMEOUT",
        }),
      );
    }, CONNECT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([negotiate(socket, host, port, tls, encrypt), timeout]);
  } catch (err) {
    socket.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function negotiate(
  socket: Socket,
  host: string,
  port: number,
  tls: PostgresTls,
  encrypt: boolean,
): Promise<Socket> {
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.connect(port, host, () => {
      socket.off("error", reject);
      resolve();
    });
  });
  if (!encrypt) return socket;
  const request = Buffer.alloc(8);
  request.writeInt32BE(8);
  request.writeInt32BE(SSL_REQUEST, 4);
  const answer = await new Promise<Buffer>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("close", () => reject(new Error("PostgreSQL closed the connection after the SSLRequest")));
    socket.once("data", resolve);
    socket.write(request);
  });
  socket.removeAllListeners();
  // Anything after the one-byte answer was sent before encryption: a man in the middle could have put it there.
  if (answer.length !== 1)
    throw new PostgresTlsError(`Unexpected answer of ${answer.length} bytes to the SSLRequest`, "SSL_PROTOCOL");
  if (answer[0] === 0x4e /* N */) {
    if (tls.mode === "prefer") return socket;
    throw new PostgresTlsError(
      `${tls.names.mode}=${tls.mode}: the server does not accept TLS connections (ssl is off on it)`,
      "SSL_REFUSED",
    );
  }
  if (answer[0] !== 0x53 /* S */)
    throw new PostgresTlsError(
      `Unexpected answer '${String.fromCharCode(answer[0]!)}' to the SSLRequest`,
      "SSL_PROTOCOL",
    );
  const secure = tlsConnect({ socket, ...tlsConnectOptions(tls, host) });
  try {
    await new Promise<void>((resolve, reject) => {
      secure.once("secureConnect", resolve);
      secure.once("error", reject);
      secure.once("close", () => reject(new Error("the server closed the connection during the TLS handshake")));
    });
  } catch (err) {
    secure.destroy();
    throw handshakeError(err, tls, host);
  }
  secure.removeAllListeners();
  return secure;
}

function handshakeError(err: unknown, tls: PostgresTls, host: string): PostgresTlsError {
  const message = handshakeFailure(err, {
    requestedBy: `${tls.names.mode}=${tls.mode}`,
    caSource: tls.caSource,
    hostSetting: tls.names.host,
    host,
  });
  return new PostgresTlsError(message, String((err as { code?: unknown }).code ?? "SSL_HANDSHAKE"));
}

/** An error the server sent (it has a SQLSTATE): the connection got as far as the start-up. */
function fromServer(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !(err instanceof PostgresTlsError);
}

/**
 * Runs `attempt` with a socket opener as the sslmode asks, once or, for allow and prefer, twice:
 * allow tries plain text first and TLS when the server refuses the start-up; prefer tries TLS first
 * and plain text when the handshake fails or the server refuses the start-up over TLS. The opener
 * handed to a successful attempt stays valid: a pool opens its later connections with it.
 */
export async function withPostgresTls<T>(
  host: string,
  port: number,
  tls: PostgresTls,
  attempt: (open: () => Promise<Socket>) => Promise<T>,
): Promise<T> {
  const tries = tls.mode === "allow" ? [false, true] : tls.mode === "prefer" ? [true, false] : [tls.mode !== "disable"];
  let firstFailure: string | undefined;
  for (let i = 0; ; i++) {
    const encrypt = tries[i]!;
    let encrypted = false;
    const open = async () => {
      const socket = await openPostgresSocket(host, port, tls, encrypt);
      encrypted = isEncrypted(socket);
      return socket;
    };
    try {
      return await attempt(open);
    } catch (err) {
      const last = i === tries.length - 1;
      const retry =
        !last && (encrypt ? err instanceof PostgresTlsError || (encrypted && fromServer(err)) : fromServer(err));
      if (!retry) {
        // As libpq: what went wrong with the first way too, which may be the one that matters.
        if (firstFailure !== undefined && err instanceof Error)
          err.message = `${err.message} (${tls.names.mode}=${tls.mode} tried ${encrypt ? "plain text" : "TLS"} first: ${firstFailure})`;
        throw err;
      }
      firstFailure = err instanceof Error ? err.message : String(err);
    }
  }
}

/** Node's TLS options for a connection checked as `tls` asks (the `postgres` library's `ssl` option). */
function tlsConnectOptions(tls: PostgresTls, host: string): ConnectionOptions {
  return {
    ...(isIP(host) ? {} : { servername: host }),
    ...(tls.ca ? { ca: [...tls.ca] } : {}),
    ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
    rejectUnauthorized: tls.verify !== "none",
    checkServerIdentity: (_: string, cert: PeerCertificate) =>
      tls.verify === "full" ? checkServerIdentity(host, cert) : undefined,
  };
}

/**
 * A pool of the `postgres` library made by `create`, with TLS as `tls` asks. One connection of our own
 * first finds out whether the server speaks TLS and checks its certificate (failures then name the
 * settings); the library then opens its connections itself, with the same checks, so it reconnects
 * on its own after the server went away and came back. allow and prefer choose once, here.
 */
export function withPostgresLibrary<T>(
  host: string,
  port: number,
  tls: PostgresTls,
  create: (ssl: ConnectionOptions | false) => Promise<T>,
): Promise<T> {
  return withPostgresTls(host, port, tls, async (open) => {
    const probe = await open();
    const encrypted = isEncrypted(probe);
    probe.destroy();
    return create(encrypted ? tlsConnectOptions(tls, host) : false);
  });
}
