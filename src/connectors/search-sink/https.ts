// HTTPS to the search servers under Confluent's names: elastic.security.protocol=SSL turns on the
// elastic.https.ssl.* trust and key stores (Kafka's client SSL settings, embedded under elastic.https.);
// with PLAINTEXT they are ignored and an https:// URL is checked against the runtime's CA certificates,
// as the Java connector falls back to the JVM's. The server's certificate is always verified, and its
// host name too unless elastic.https.ssl.endpoint.identification.algorithm is empty. A TLS failure is
// explained by the setting that can fix it, and not retried: another attempt meets the same certificate.
import { ConnectException } from "../../connect/api/connector.ts";
import { clientTls } from "../../platform/tls.ts";

export const SSL_PREFIX = "elastic.https.";
export const SECURITY_PROTOCOL = "elastic.security.protocol";
const TRUSTSTORE = `${SSL_PREFIX}ssl.truststore.location`;
const TRUSTSTORE_CERTIFICATES = `${SSL_PREFIX}ssl.truststore.certificates`;
const KEYSTORE = `${SSL_PREFIX}ssl.keystore.location`;
const ENDPOINT_IDENTIFICATION = `${SSL_PREFIX}ssl.endpoint.identification.algorithm`;

/** fetch's `tls` option. */
export interface FetchTls {
  ca?: string[];
  cert?: string;
  key?: string;
  checkServerIdentity?: () => undefined;
}

export interface SearchHttps {
  /** elastic.security.protocol=SSL. */
  ssl: boolean;
  /** For https:// URLs; undefined: the runtime's CA certificates, host names checked. */
  tls: FetchTls | undefined;
  /** The setting the trusted CA certificates come from; undefined for the runtime's own. */
  trustSetting: string | undefined;
  clientCertificate: boolean;
}

/**
 * The HTTPS settings from the connector's `elastic.*` values. Throws ConfigError naming the setting for
 * a store that cannot be read (a missing file, a wrong password, a JKS file).
 */
export function searchHttps(props: Record<string, string>): SearchHttps {
  const ssl = (props[SECURITY_PROTOCOL] ?? "").trim().toUpperCase() === "SSL";
  if (!ssl) return { ssl, tls: undefined, trustSetting: undefined, clientCertificate: false };
  const { ca, cert, key, checkHostname } = clientTls(props, SSL_PREFIX);
  const tls: FetchTls = {
    ...(ca ? { ca } : {}),
    ...(cert && key ? { cert, key } : {}),
    ...(checkHostname ? {} : { checkServerIdentity: () => undefined }),
  };
  const trustSetting = !ca ? undefined : props[TRUSTSTORE_CERTIFICATES]?.trim() ? TRUSTSTORE_CERTIFICATES : TRUSTSTORE;
  return {
    ssl,
    tls: Object.keys(tls).length > 0 ? tls : undefined,
    trustSetting,
    clientCertificate: cert !== undefined,
  };
}

/** A TLS failure on the way to a server: the setting to look at and what to do. Not retriable. */
export class SearchTlsException extends ConnectException {
  constructor(
    message: string,
    /** The setting that most likely needs changing. */
    readonly setting: string,
    cause?: unknown,
  ) {
    super(message, cause);
    this.name = "SearchTlsException";
  }
}

/** OpenSSL's verification failures of the server's certificate chain (Node's and Bun's error codes). */
const UNTRUSTED = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "INVALID_CA",
  "INVALID_PURPOSE",
  "PATH_LENGTH_EXCEEDED",
]);

/**
 * What a failed request to `url` says about the TLS settings: a SearchTlsException for a certificate
 * or handshake problem, else a hint to add to the connection error ("" when there is none).
 */
export function tlsProblem(url: string, err: unknown, https: SearchHttps): SearchTlsException | string {
  const code = (err as { code?: unknown } | null)?.code;
  // Bun's messages end with advice about its own debugging option, which means nothing to an operator.
  const message = (err instanceof Error ? err.message : String(err)).replace(
    /\.? ?For more information, pass `verbose: true`.*$/,
    "",
  );
  const reason = `${message}${typeof code === "string" && !message.includes(code) ? ` (${code})` : ""}`;
  const isHttps = url.startsWith("https:");
  if (typeof code !== "string") return "";
  if (isHttps && UNTRUSTED.has(code)) {
    const fix = https.trustSetting
      ? `the server's certificate is not signed by a CA in ${https.trustSetting}, or is not valid now`
      : `the server's certificate is not signed by a CA the runtime trusts: set ${SECURITY_PROTOCOL}=SSL and ${TRUSTSTORE} to the CA that signed it`;
    return new SearchTlsException(
      `TLS error from ${url}: ${reason}; ${fix}`,
      https.trustSetting ?? (https.ssl ? TRUSTSTORE : SECURITY_PROTOCOL),
      err,
    );
  }
  if (isHttps && (code === "ERR_TLS_CERT_ALTNAME_INVALID" || code === "HOSTNAME_MISMATCH")) {
    const fix = `the server's certificate is not issued for the host name of the URL; use a name it lists, or set ${ENDPOINT_IDENTIFICATION} empty to skip the host name check`;
    return new SearchTlsException(
      `TLS error from ${url}: ${reason}; ${fix}`,
      https.ssl ? ENDPOINT_IDENTIFICATION : SECURITY_PROTOCOL,
      err,
    );
  }
  if (isHttps && code === "EPROTO") {
    // The server refused the handshake: most often it wants a client certificate, or it does not speak TLS.
    const fix = https.clientCertificate
      ? `the server did not accept the client certificate of ${KEYSTORE}, or it does not speak TLS on this port`
      : `the server may require a client certificate (set ${KEYSTORE}), or it does not speak TLS on this port`;
    return new SearchTlsException(
      `TLS handshake with ${url} failed: ${reason}; ${fix}`,
      https.ssl ? KEYSTORE : SECURITY_PROTOCOL,
      err,
    );
  }
  if (!isHttps && (code === "ECONNRESET" || code === "ERR_INVALID_HTTP_RESPONSE"))
    return "; if the server speaks HTTPS, the URL must start with https://";
  return "";
}
