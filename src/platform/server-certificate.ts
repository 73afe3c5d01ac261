// Why a TLS handshake with a database server failed, said in terms of the settings behind the checks:
// which setting asked for verification, where the trusted CAs came from, which host name was checked.

/** Chain problems: the certificate does not lead to a CA the client trusts. */
const UNTRUSTED_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
]);
/** The same problems as the TLS library words them, for clients that replace its error codes with their own. */
const UNTRUSTED_TEXT =
  /unable to verify|unable to get (local )?issuer|self[- ]signed certificate|certificate signature failure/i;
const WRONG_HOST_TEXT = /does not match certificate's altnames|hostname\/ip does not match/i;
const NOT_VALID_NOW_TEXT = /certificate has expired|certificate is not yet valid/i;

export interface CertificateChecks {
  /** The setting that asked for the checks, with its value: `database.sslmode=verify-full`. */
  readonly requestedBy: string;
  /** Where the trusted CAs come from: `database.sslrootcert (/etc/ca.pem)`, `the system's trusted CAs`. */
  readonly caSource: string;
  /** The setting naming the host the certificate must be for, and that host. */
  readonly hostSetting: string;
  readonly host: string;
}

/** The message for a failed handshake: what the certificate failed, then the TLS library's own words. */
export function handshakeFailure(err: unknown, checks: CertificateChecks): string {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  const cause = err instanceof Error ? err.message : String(err);
  const what =
    UNTRUSTED_CODES.has(code) || UNTRUSTED_TEXT.test(cause)
      ? `the server's certificate is not signed by a CA in ${checks.caSource}`
      : code === "ERR_TLS_CERT_ALTNAME_INVALID" || WRONG_HOST_TEXT.test(cause)
        ? `the server's certificate is not for ${checks.hostSetting}=${checks.host}`
        : code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID" || NOT_VALID_NOW_TEXT.test(cause)
          ? "the server's certificate is not valid now"
          : "the TLS handshake with the server failed";
  return `${checks.requestedBy}: ${what}: ${cause}`;
}
