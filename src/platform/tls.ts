// HTTPS for the REST listeners from the originals' key store and trust store settings
// (ssl.keystore.*, ssl.truststore.*): PEM and PKCS12 files, read into the PEM text Bun.serve takes.
import { createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import type { TLSOptions } from "bun";
import forge from "node-forge";
import { ConfigError, type ParsedSettings, type Setting } from "./settings.ts";

/** Whether a client must, may or need not present a certificate signed by a trust store CA. */
export type ClientAuth = "none" | "requested" | "required";

const STORE_TYPES = ["JKS", "PKCS12", "PEM"];

/** The key and trust store settings, by the names Confluent's REST servers and Kafka Connect share. */
export const storeSettings: Setting[] = [
  {
    name: "ssl.keystore.location",
    type: "string",
    default: "",
    importance: "high",
    doc: "Key store of the HTTPS listeners: a PKCS12 file, or a PEM file holding the private key and the certificate chain.",
  },
  {
    name: "ssl.keystore.password",
    type: "password",
    default: "",
    importance: "high",
    doc: "Password of the PKCS12 key store.",
  },
  {
    name: "ssl.key.password",
    type: "password",
    default: "",
    importance: "high",
    doc: "Password of an encrypted private key in a PEM key store.",
  },
  {
    name: "ssl.keystore.type",
    type: "string",
    default: "JKS",
    oneOf: STORE_TYPES,
    importance: "medium",
    doc: "Format of the key store. JKS reads a PKCS12 file as Java does; a real JKS file is refused: convert it with `keytool -importkeystore -deststoretype PKCS12`.",
  },
  {
    name: "ssl.truststore.location",
    type: "string",
    default: "",
    importance: "high",
    doc: "CA certificates that client certificates must be signed by (PKCS12, or PEM certificates).",
  },
  {
    name: "ssl.truststore.password",
    type: "password",
    default: "",
    importance: "high",
    doc: "Password of the PKCS12 trust store.",
  },
  {
    name: "ssl.truststore.type",
    type: "string",
    default: "JKS",
    oneOf: STORE_TYPES,
    importance: "medium",
    doc: "Format of the trust store, as ssl.keystore.type.",
  },
];

/**
 * Bun.serve's TLS options from the store settings. `prefix` names where the settings came from in
 * error messages (Kafka Connect's `listeners.https.`).
 */
export function serverTls(settings: ParsedSettings, clientAuth: ClientAuth, prefix = ""): TLSOptions {
  const keystore = settings.string("ssl.keystore.location");
  if (!keystore)
    throw new ConfigError(`${prefix}ssl.keystore.location`, "", "a key store is required for https listeners");
  const { key, chain } = readKeyStore(
    keystore,
    settings.string("ssl.keystore.type"),
    settings.string("ssl.keystore.password"),
    settings.string("ssl.key.password"),
    prefix,
  );
  const truststore = settings.string("ssl.truststore.location");
  if (clientAuth === "required" && !truststore) {
    throw new ConfigError(
      `${prefix}ssl.truststore.location`,
      "",
      "a trust store is required to check client certificates",
    );
  }
  const ca = truststore
    ? readTrustStore(
        truststore,
        settings.string("ssl.truststore.type"),
        settings.string("ssl.truststore.password"),
        prefix,
      )
    : undefined;
  return {
    key,
    cert: chain.join(""),
    ...(ca ? { ca } : {}),
    requestCert: clientAuth !== "none",
    // "requested" lets a client without a valid certificate in, as anonymous.
    rejectUnauthorized: clientAuth === "required",
  };
}

/** A TLS client's material: the CAs it trusts and, for mutual TLS, its own key and certificate chain. */
/** How a database client checks its server and proves itself, its files already read (PostgreSQL, MySQL, MariaDB). */
export interface ServerVerification {
  /** What the server's certificate must pass: nothing, a chain to a trusted CA, or that and the host name. */
  readonly verify: "none" | "chain" | "full";
  /** Trusted CA certificates; undefined: the system's. */
  readonly ca?: readonly string[];
  /** Where the trusted CAs come from, for messages. */
  readonly caSource: string;
  /** Client certificate chain and key, for servers that ask for one. */
  readonly cert?: string;
  readonly key?: string;
}

export interface ClientTls {
  ca?: string[];
  cert?: string;
  key?: string;
  /** Kafka checks the server's host name unless ssl.endpoint.identification.algorithm is set empty. */
  checkHostname: boolean;
}

/**
 * A client's TLS material from Kafka-style ssl.* properties under `prefix` (Kafka clients' own names;
 * `schema.registry.` for the registry client): key and trust stores as files (PEM or PKCS12) or
 * Kafka's inline PEM settings.
 */
export function clientTls(props: Record<string, string>, prefix = ""): ClientTls {
  const get = (name: string) => props[prefix + name]?.trim() || undefined;
  const inlineCa = get("ssl.truststore.certificates");
  const truststore = get("ssl.truststore.location");
  const ca = inlineCa
    ? pemBlocks(inlineCa).map((b) => b.pem)
    : truststore
      ? readTrustStore(
          truststore,
          (get("ssl.truststore.type") ?? "JKS").toUpperCase(),
          get("ssl.truststore.password") ?? "",
          prefix,
        )
      : undefined;
  let key = get("ssl.keystore.key");
  let cert = get("ssl.keystore.certificate.chain");
  const keystore = get("ssl.keystore.location");
  if (!key && keystore) {
    const store = readKeyStore(
      keystore,
      (get("ssl.keystore.type") ?? "JKS").toUpperCase(),
      get("ssl.keystore.password") ?? "",
      get("ssl.key.password") ?? "",
      prefix,
    );
    key = store.key;
    cert = store.chain.join("");
  }
  return {
    ...(ca ? { ca } : {}),
    ...(key && cert ? { key, cert } : {}),
    checkHostname: props[`${prefix}ssl.endpoint.identification.algorithm`]?.trim() !== "",
  };
}

/** Fetch's TLS options for calls to other instances over https: trust what the server trusts, show its certificate. */
export type ForwardingTls = Pick<TLSOptions, "ca" | "cert" | "key">;

export function forwardingTls(server: TLSOptions | undefined): ForwardingTls | undefined {
  return server ? { ca: server.ca, cert: server.cert, key: server.key } : undefined;
}

function readStore(path: string, setting: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(
      setting,
      path,
      `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
}

const JKS_MAGIC = [0xfeedfeed, 0xcececece];

/** A file's format: PEM text, or PKCS12 (what Java's JKS type also reads); real JKS is refused. */
function storeFormat(
  bytes: Buffer,
  type: string,
  path: string,
  setting: string,
  typeSetting = setting.replace(/location$/, "type"),
): "PEM" | "PKCS12" {
  if (bytes.length >= 4 && JKS_MAGIC.includes(bytes.readUInt32BE(0))) {
    throw new ConfigError(
      setting,
      path,
      `JKS key stores are not supported; convert it to PKCS12 with keytool -importkeystore -srckeystore ${path} -destkeystore ${path}.p12 -deststoretype PKCS12, then point to the .p12 file`,
    );
  }
  if (type === "PEM") return "PEM";
  if (bytes.toString("latin1", 0, 64).includes("-----BEGIN ")) {
    throw new ConfigError(typeSetting, type, "the file is PEM: set the type to PEM");
  }
  return "PKCS12";
}

function readKeyStore(
  path: string,
  type: string,
  password: string,
  keyPassword: string,
  prefix: string,
): { key: string; chain: string[] } {
  return readKeyStoreFile(path, type, password, keyPassword, {
    location: `${prefix}ssl.keystore.location`,
    type: `${prefix}ssl.keystore.type`,
  });
}

/** The settings that name a store file and its type, for error messages (a database driver's own names). */
export interface StoreSettingNames {
  readonly location: string;
  readonly type: string;
}

/** A key store file (PKCS12, or PEM with type PEM; JKS refused): its PKCS8 PEM key and certificate chain. */
export function readKeyStoreFile(
  path: string,
  type: string,
  password: string,
  keyPassword: string,
  names: StoreSettingNames,
): { key: string; chain: string[] } {
  const setting = names.location;
  const bytes = readStore(path, setting);
  const pem =
    storeFormat(bytes, type, path, setting, names.type) === "PEM"
      ? pemKeyStore(bytes.toString("utf8"), keyPassword, setting, path)
      : pkcs12KeyStore(bytes, password, setting, path);
  // The certificate of the key first, then the rest of the chain, as TLS sends it.
  const leaf = pem.certs.findIndex((c) => new X509Certificate(c).checkPrivateKey(pem.key));
  if (leaf < 0) throw new ConfigError(setting, path, "no certificate in the key store matches its private key");
  const chain = [pem.certs[leaf]!, ...pem.certs.filter((_, i) => i !== leaf)];
  return { key: pem.key.export({ type: "pkcs8", format: "pem" }).toString(), chain };
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----\r?\n?/g;

function pemBlocks(text: string): { label: string; pem: string }[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ label: m[1]!, pem: m[0].endsWith("\n") ? m[0] : `${m[0]}\n` }));
}

function pemKeyStore(
  text: string,
  keyPassword: string,
  setting: string,
  path: string,
): { key: KeyObject; certs: string[] } {
  const blocks = pemBlocks(text);
  const keyBlock = blocks.find((b) => b.label.endsWith("PRIVATE KEY"));
  if (!keyBlock)
    throw new ConfigError(setting, path, "a PEM key store needs a private key and its certificate chain in one file");
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: keyBlock.pem, ...(keyPassword ? { passphrase: keyPassword } : {}) });
  } catch {
    throw new ConfigError(setting, path, "cannot read the private key (wrong or missing ssl.key.password?)");
  }
  return { key, certs: blocks.filter((b) => b.label === "CERTIFICATE").map((b) => b.pem) };
}

function openPkcs12(bytes: Buffer, password: string, setting: string, path: string): forge.pkcs12.Pkcs12Pfx {
  try {
    return forge.pkcs12.pkcs12FromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(bytes.toString("binary"))),
      false,
      password,
    );
  } catch (err) {
    // forge's messages name the cause (e.g. a MAC that does not verify: a wrong password).
    throw new ConfigError(
      setting,
      path,
      `cannot read the PKCS12 file: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

function bagCertificates(p12: forge.pkcs12.Pkcs12Pfx): string[] {
  const bags = p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  return bags.flatMap((b) => (b.cert ? [forge.pki.certificateToPem(b.cert)] : []));
}

function pkcs12KeyStore(
  bytes: Buffer,
  password: string,
  setting: string,
  path: string,
): { key: KeyObject; certs: string[] } {
  const p12 = openPkcs12(bytes, password, setting, path);
  const oids = forge.pki.oids;
  const keyBag = [oids.pkcs8ShroudedKeyBag!, oids.keyBag!]
    .flatMap((t) => p12.getBags({ bagType: t })[t] ?? [])
    .find((b) => b.key);
  if (!keyBag?.key) throw new ConfigError(setting, path, "the PKCS12 file holds no private key");
  return { key: createPrivateKey(forge.pki.privateKeyToPem(keyBag.key)), certs: bagCertificates(p12) };
}

function readTrustStore(path: string, type: string, password: string, prefix: string): string[] {
  return readTrustStoreFile(path, type, password, {
    location: `${prefix}ssl.truststore.location`,
    type: `${prefix}ssl.truststore.type`,
  });
}

/** A trust store file's CA certificates as PEM (PKCS12, or PEM with type PEM; JKS refused). */
export function readTrustStoreFile(path: string, type: string, password: string, names: StoreSettingNames): string[] {
  const setting = names.location;
  const bytes = readStore(path, setting);
  const certs =
    storeFormat(bytes, type, path, setting, names.type) === "PEM"
      ? pemBlocks(bytes.toString("utf8"))
          .filter((b) => b.label === "CERTIFICATE")
          .map((b) => b.pem)
      : bagCertificates(openPkcs12(bytes, password, setting, path));
  if (certs.length === 0) throw new ConfigError(setting, path, "the trust store holds no certificates");
  return certs;
}

/** The PEM certificates of a file (a CA bundle, or a certificate and its chain). */
export function readCertificateFile(path: string, setting: string): string[] {
  const certs = pemBlocks(readStore(path, setting).toString("utf8"))
    .filter((b) => b.label === "CERTIFICATE")
    .map((b) => b.pem);
  if (certs.length === 0) throw new ConfigError(setting, path, "the file holds no PEM certificate");
  return certs;
}

/**
 * A private key file as PKCS8 PEM: PEM (PKCS8, PKCS1 or SEC1, encrypted with `password` when it is)
 * or PKCS8 DER (what the PostgreSQL JDBC driver reads, its .pk8 files).
 */
export function readPrivateKeyFile(path: string, password: string, setting: string, passwordSetting: string): string {
  const bytes = readStore(path, setting);
  const pem = bytes.toString("latin1", 0, 64).includes("-----BEGIN ")
    ? pemBlocks(bytes.toString("utf8")).find((b) => b.label.endsWith("PRIVATE KEY"))
    : undefined;
  try {
    const passphrase = password ? { passphrase: password } : {};
    const key = pem
      ? createPrivateKey({ key: pem.pem, ...passphrase })
      : createPrivateKey({ key: bytes, format: "der", type: "pkcs8", ...passphrase });
    return key.export({ type: "pkcs8", format: "pem" }).toString();
  } catch (err) {
    const encrypted = pem ? pem.label.startsWith("ENCRYPTED") || pem.pem.includes("Proc-Type: 4,ENCRYPTED") : false;
    const hint =
      encrypted && !password
        ? `the key is encrypted: set ${passwordSetting}`
        : password
          ? `wrong ${passwordSetting}, or not a private key`
          : "not a PEM or PKCS8 DER private key";
    throw new ConfigError(
      setting,
      path,
      `cannot read the private key (${hint}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** A PKCS12 file's key (PKCS8 PEM) and certificate chain, the key's certificate first. */
export function readPkcs12File(path: string, password: string, setting: string): { key: string; chain: string[] } {
  return readKeyStoreFile(path, "PKCS12", password, "", { location: setting, type: setting });
}
