// AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html):
// the canonical request, the string to sign and the signature, and a presigned URL (the signature in the
// query string), as Amazon MSK's IAM tokens are. Pure: the time and the credentials are arguments.
import { createHash, createHmac } from "node:crypto";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS, SSO, instance roles) come with a session token. */
  sessionToken?: string;
}

export interface SigningInput {
  method: string;
  /** The path, already as it goes on the wire (`/` for MSK). */
  path: string;
  /** Query parameters, unencoded; their order does not matter to the signature. */
  query: [string, string][];
  /** Headers to sign (lower-case names). */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body. */
  payloadHash: string;
  credentials: AwsCredentials;
  region: string;
  service: string;
  date: Date;
}

export const EMPTY_PAYLOAD_HASH = createHash("sha256").update("").digest("hex");

/** RFC 3986 percent-encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20150830T123600Z` */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

export function credentialScope(date: Date, region: string, service: string): string {
  return `${amzDate(date).slice(0, 8)}/${region}/${service}/aws4_request`;
}

export function canonicalQuery(query: [string, string][]): string {
  return query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

export function sign(input: SigningInput): {
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  signedHeaders: string;
} {
  const names = Object.keys(input.headers)
    .map((n) => n.toLowerCase())
    .sort();
  const value = (name: string) =>
    Object.entries(input.headers)
      .find(([n]) => n.toLowerCase() === name)![1]
      .trim()
      .replace(/\s+/g, " ");
  const signedHeaders = names.join(";");
  const canonicalRequest = [
    input.method,
    input.path,
    canonicalQuery(input.query),
    names.map((n) => `${n}:${value(n)}\n`).join(""),
    signedHeaders,
    input.payloadHash,
  ].join("\n");
  const scope = credentialScope(input.date, input.region, input.service);
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate(input.date),
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  let key = hmac(`AWS4${input.credentials.secretAccessKey}`, amzDate(input.date).slice(0, 8));
  for (const part of [input.region, input.service, "aws4_request"]) key = hmac(key, part);
  return {
    canonicalRequest,
    stringToSign,
    signature: createHmac("sha256", key).update(stringToSign).digest("hex"),
    signedHeaders,
  };
}

/**
 * A presigned GET URL: the request's own parameters, then the X-Amz-* ones in the order AWS's signers
 * write them, the signature last, then `unsigned` parameters (not part of the signature).
 */
export function presignedUrl(options: {
  host: string;
  path?: string;
  params: [string, string][];
  credentials: AwsCredentials;
  region: string;
  service: string;
  date: Date;
  expiresSeconds: number;
  unsigned?: [string, string][];
}): string {
  const { host, path = "/", credentials, region, service, date } = options;
  const auth: [string, string][] = [
    ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
    ["X-Amz-Credential", `${credentials.accessKeyId}/${credentialScope(date, region, service)}`],
    ["X-Amz-Date", amzDate(date)],
    ["X-Amz-Expires", String(options.expiresSeconds)],
    ["X-Amz-SignedHeaders", "host"],
    ...(credentials.sessionToken ? ([["X-Amz-Security-Token", credentials.sessionToken]] as [string, string][]) : []),
  ];
  const query = [...options.params, ...auth];
  const { signature } = sign({
    method: "GET",
    path,
    query,
    headers: { host },
    payloadHash: EMPTY_PAYLOAD_HASH,
    credentials,
    region,
    service,
    date,
  });
  const written = [...query, ["X-Amz-Signature", signature], ...(options.unsigned ?? [])]
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join("&");
  return `https://${host}${path}?${written}`;
}
