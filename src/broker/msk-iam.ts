// Amazon MSK's IAM authentication over SASL/OAUTHBEARER (what aws-msk-iam-auth's
// IAMOAuthBearerLoginCallbackHandler and AWS's aws-msk-iam-sasl-signer libraries do): the token is a
// SigV4-presigned `kafka-cluster:Connect` URL of `kafka.<region>.amazonaws.com`, base64url without
// padding, valid 15 minutes. Credentials come from the places AWS's SDKs look, in their order:
// environment variables, web identity federation (EKS service accounts: AWS_WEB_IDENTITY_TOKEN_FILE
// and AWS_ROLE_ARN), the shared credentials and config files (AWS_PROFILE), a container's credentials
// endpoint (ECS, EKS Pod Identity), the EC2 instance metadata service (IMDSv2); before them, as
// aws-msk-iam-auth, the JAAS options' profile (awsProfileName) and role (awsRoleArn, assumed at STS).
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import type { AssumedRole, MskIamLogin } from "./client-security.ts";
import { LoginError, type ExpiringToken } from "./token.ts";
import { amzDate, credentialScope, presignedUrl, sign, type AwsCredentials } from "../platform/aws-sigv4.ts";
import { VERSION } from "../platform/version.ts";

/** How long MSK accepts a token (the signers' X-Amz-Expires). */
export const TOKEN_LIFETIME_SECONDS = 900;

/** The token for these credentials at this time (whole seconds, as the signature has them). */
export function mskIamTokenAt(
  credentials: AwsCredentials,
  region: string,
  date: Date,
  userAgent = `sluice/${VERSION}`,
): ExpiringToken {
  const at = new Date(Math.floor(date.getTime() / 1000) * 1000);
  const url = presignedUrl({
    host: `kafka.${region}.amazonaws.com`,
    params: [["Action", "kafka-cluster:Connect"]],
    credentials,
    region,
    service: "kafka-cluster",
    date: at,
    expiresSeconds: TOKEN_LIFETIME_SECONDS,
    // As AWS's signers: who made the token, after the signature.
    unsigned: [["User-Agent", userAgent]],
  });
  return { value: Buffer.from(url).toString("base64url"), expiresAtMs: at.getTime() + TOKEN_LIFETIME_SECONDS * 1000 };
}

export async function mskIamToken(
  login: MskIamLogin,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): Promise<ExpiringToken> {
  const region = awsRegion(env, login.profile ?? envProfile(env));
  return mskIamTokenAt(await mskIamCredentials(login, env), region, now);
}

/**
 * As aws-msk-iam-auth chains them: the profile the JAAS options name, then the role they name (assumed
 * with its own keys or the default sources'), then the default sources.
 */
export async function mskIamCredentials(
  login: Pick<MskIamLogin, "profile" | "role">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AwsCredentials> {
  const named = login.profile ? profileCredentials(env, login.profile) : undefined;
  if (named) return named;
  if (login.role)
    return assumeRole(login.role, login.role.credentials ?? (await awsCredentials(env, envProfile(env))), env);
  return awsCredentials(env, envProfile(env));
}

function envProfile(env: NodeJS.ProcessEnv): string {
  return env.AWS_PROFILE?.trim() || env.AWS_DEFAULT_PROFILE?.trim() || "default";
}

/** STS AssumeRole as a SigV4-signed form POST (what AWS's SDKs send), for `date`. */
export function assumeRoleRequest(
  role: AssumedRole,
  credentials: AwsCredentials,
  endpoint: string,
  date: Date,
): { url: string; headers: Record<string, string>; body: string } {
  const url = new URL(endpoint);
  const body = new URLSearchParams({
    Action: "AssumeRole",
    Version: "2011-06-15",
    RoleArn: role.arn,
    RoleSessionName: role.sessionName,
    ...(role.externalId ? { ExternalId: role.externalId } : {}),
  }).toString();
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded; charset=utf-8",
    host: url.host,
    "x-amz-date": amzDate(date),
    ...(credentials.sessionToken ? { "x-amz-security-token": credentials.sessionToken } : {}),
  };
  // The global endpoint signs for us-east-1.
  const region = role.stsRegion === "aws-global" ? "us-east-1" : role.stsRegion;
  const { signature, signedHeaders } = sign({
    method: "POST",
    path: url.pathname || "/",
    query: [],
    headers,
    payloadHash: createHash("sha256").update(body).digest("hex"),
    credentials,
    region,
    service: "sts",
    date,
  });
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope(date, region, "sts")}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { url: url.href, headers, body };
}

async function assumeRole(role: AssumedRole, base: AwsCredentials, env: NodeJS.ProcessEnv): Promise<AwsCredentials> {
  const endpoint =
    env.AWS_ENDPOINT_URL_STS?.trim() ||
    env.AWS_ENDPOINT_URL?.trim() ||
    (role.stsRegion === "aws-global" ? "https://sts.amazonaws.com/" : `https://sts.${role.stsRegion}.amazonaws.com/`);
  const { url, headers, body } = assumeRoleRequest(role, base, endpoint, new Date());
  return stsCredentials(url, headers, body, `STS AssumeRole at ${url} for ${role.arn}`);
}

/** The region: AWS_REGION, AWS_DEFAULT_REGION, else the profile's `region` in the config file. */
export function awsRegion(env: NodeJS.ProcessEnv, profile: string): string {
  const region =
    env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || profileSection(configFile(env), profile, true)?.region;
  if (!region)
    throw new LoginError(
      `Amazon MSK IAM: no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or region in the ${profile} profile of ${configFile(env)})`,
    );
  return region;
}

/** Credentials from the first of AWS's default sources that has them. */
export async function awsCredentials(env: NodeJS.ProcessEnv, profile: string): Promise<AwsCredentials> {
  const tried: string[] = [];
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (accessKeyId && secretAccessKey)
    return {
      accessKeyId,
      secretAccessKey,
      ...(env.AWS_SESSION_TOKEN?.trim() ? { sessionToken: env.AWS_SESSION_TOKEN.trim() } : {}),
    };
  tried.push("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY");
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE?.trim() && env.AWS_ROLE_ARN?.trim()) return webIdentityCredentials(env, profile);
  tried.push("AWS_WEB_IDENTITY_TOKEN_FILE/AWS_ROLE_ARN");
  const fromProfile = profileCredentials(env, profile);
  if (fromProfile) return fromProfile;
  tried.push(`profile ${profile} in ${credentialsFile(env)} and ${configFile(env)}`);
  const container = await containerCredentials(env);
  if (container) return container;
  tried.push("the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI/RELATIVE_URI)");
  if (env.AWS_EC2_METADATA_DISABLED?.trim().toLowerCase() !== "true") {
    const instance = await instanceCredentials(env);
    if (instance) return instance;
    tried.push("the EC2 instance metadata service");
  }
  throw new LoginError(`Amazon MSK IAM: no AWS credentials found; tried ${tried.join(", ")}`);
}

function credentialsFile(env: NodeJS.ProcessEnv): string {
  return env.AWS_SHARED_CREDENTIALS_FILE?.trim() || join(homedir(), ".aws", "credentials");
}

function configFile(env: NodeJS.ProcessEnv): string {
  return env.AWS_CONFIG_FILE?.trim() || join(homedir(), ".aws", "config");
}

/** A profile's keys: `[name]` in the credentials file, `[profile name]` (or `[default]`) in the config file. */
function profileSection(file: string, profile: string, isConfig: boolean): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const wanted =
    isConfig && profile !== "default" ? [`profile ${profile}`] : isConfig ? ["default", "profile default"] : [profile];
  let section: Record<string, string> | undefined;
  let inside = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, "");
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*(.+?)\s*\]/.exec(line);
    if (header) {
      inside = wanted.includes(header[1]!.replace(/\s+/g, " "));
      if (inside) section ??= {};
      continue;
    }
    const pair = /^([^=]+?)\s*=\s*(.*?)\s*$/.exec(line);
    if (inside && pair && !/^\s/.test(raw)) section![pair[1]!.toLowerCase()] = pair[2]!;
  }
  return section;
}

function profileCredentials(env: NodeJS.ProcessEnv, profile: string): AwsCredentials | undefined {
  for (const [file, isConfig] of [
    [credentialsFile(env), false],
    [configFile(env), true],
  ] as const) {
    const section = profileSection(file, profile, isConfig);
    if (!section) continue;
    if (section.aws_access_key_id && section.aws_secret_access_key) {
      return {
        accessKeyId: section.aws_access_key_id,
        secretAccessKey: section.aws_secret_access_key,
        ...(section.aws_session_token ? { sessionToken: section.aws_session_token } : {}),
      };
    }
    const unsupported = [
      "role_arn",
      "sso_session",
      "sso_start_url",
      "credential_process",
      "web_identity_token_file",
    ].find((k) => section[k] !== undefined);
    if (unsupported)
      throw new LoginError(
        `Amazon MSK IAM: profile ${profile} in ${file} gets its credentials through ${unsupported}, which Sluice does not support; give it aws_access_key_id and aws_secret_access_key (and aws_session_token), or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN`,
      );
  }
  return undefined;
}

/**
 * STS AssumeRoleWithWebIdentity (not signed: the web identity token is the proof), at the region's STS
 * endpoint, or AWS_ENDPOINT_URL_STS / AWS_ENDPOINT_URL as the SDKs take them.
 */
async function webIdentityCredentials(env: NodeJS.ProcessEnv, profile: string): Promise<AwsCredentials> {
  const tokenFile = env.AWS_WEB_IDENTITY_TOKEN_FILE!.trim();
  let webIdentityToken: string;
  try {
    webIdentityToken = readFileSync(tokenFile, "utf8").trim();
  } catch (err) {
    throw new LoginError(
      `Amazon MSK IAM: cannot read AWS_WEB_IDENTITY_TOKEN_FILE ${tokenFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  let region: string | undefined;
  try {
    region = awsRegion(env, profile);
  } catch {
    region = undefined; // the global endpoint
  }
  const endpoint = (
    env.AWS_ENDPOINT_URL_STS?.trim() ||
    env.AWS_ENDPOINT_URL?.trim() ||
    `https://sts.${region ? `${region}.` : ""}amazonaws.com`
  ).replace(/\/+$/, "");
  const form = new URLSearchParams({
    Action: "AssumeRoleWithWebIdentity",
    Version: "2011-06-15",
    RoleArn: env.AWS_ROLE_ARN!.trim(),
    RoleSessionName: env.AWS_ROLE_SESSION_NAME?.trim() || `sluice-${Date.now()}`,
    WebIdentityToken: webIdentityToken,
  });
  return stsCredentials(
    `${endpoint}/`,
    { "content-type": "application/x-www-form-urlencoded" },
    form.toString(),
    `STS AssumeRoleWithWebIdentity at ${endpoint} for ${env.AWS_ROLE_ARN}`,
  );
}

/** The credentials of an STS answer (XML), or why there are none (its error message, not its body). */
async function stsCredentials(
  url: string,
  headers: Record<string, string>,
  body: string,
  what: string,
): Promise<AwsCredentials> {
  let xml: string;
  try {
    const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(10000) });
    xml = await response.text();
    if (!response.ok)
      throw new Error(
        `HTTP ${response.status}${/<Message>([^<]{0,300})<\/Message>/.exec(xml)?.[1] ? `: ${/<Message>([^<]{0,300})<\/Message>/.exec(xml)![1]}` : ""}`,
      );
  } catch (err) {
    throw new LoginError(`Amazon MSK IAM: ${what} failed: ${(err as Error).message}`);
  }
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();
  const [accessKeyId, secretAccessKey, sessionToken] = [
    field("AccessKeyId"),
    field("SecretAccessKey"),
    field("SessionToken"),
  ];
  if (!accessKeyId || !secretAccessKey) throw new LoginError(`Amazon MSK IAM: ${what} answered no credentials`);
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** Temporary credentials from a JSON endpoint (AccessKeyId, SecretAccessKey, Token). */
async function credentialsFrom(url: string, headers: Record<string, string>, what: string): Promise<AwsCredentials> {
  let body: { AccessKeyId?: string; SecretAccessKey?: string; Token?: string };
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as typeof body;
  } catch (err) {
    throw new LoginError(`Amazon MSK IAM: could not read credentials from ${what}: ${(err as Error).message}`);
  }
  if (!body.AccessKeyId || !body.SecretAccessKey)
    throw new LoginError(`Amazon MSK IAM: ${what} answered no AccessKeyId/SecretAccessKey`);
  return {
    accessKeyId: body.AccessKeyId,
    secretAccessKey: body.SecretAccessKey,
    ...(body.Token ? { sessionToken: body.Token } : {}),
  };
}

/** ECS task roles and EKS Pod Identity: the endpoint the environment names, with its authorization token. */
async function containerCredentials(env: NodeJS.ProcessEnv): Promise<AwsCredentials | undefined> {
  const relative = env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI?.trim();
  const url = relative ? `http://169.254.170.2${relative}` : env.AWS_CONTAINER_CREDENTIALS_FULL_URI?.trim();
  if (!url) return undefined;
  let authorization = env.AWS_CONTAINER_AUTHORIZATION_TOKEN?.trim();
  const tokenFile = env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE?.trim();
  if (tokenFile) {
    try {
      authorization = readFileSync(tokenFile, "utf8").trim();
    } catch (err) {
      throw new LoginError(
        `Amazon MSK IAM: cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE ${tokenFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
  }
  return credentialsFrom(url, authorization ? { authorization } : {}, `the container credentials endpoint ${url}`);
}

/** IMDSv2: a session token, the instance role's name, then its credentials; undefined off EC2. */
async function instanceCredentials(env: NodeJS.ProcessEnv): Promise<AwsCredentials | undefined> {
  const base = (env.AWS_EC2_METADATA_SERVICE_ENDPOINT?.trim() || "http://169.254.169.254").replace(/\/+$/, "");
  let token: string;
  let role: string;
  try {
    const session = await fetch(`${base}/latest/api/token`, {
      method: "PUT",
      headers: { "x-aws-ec2-metadata-token-ttl-seconds": "21600" },
      signal: AbortSignal.timeout(1000),
    });
    if (!session.ok) return undefined;
    token = await session.text();
    const roles = await fetch(`${base}/latest/meta-data/iam/security-credentials/`, {
      headers: { "x-aws-ec2-metadata-token": token },
      signal: AbortSignal.timeout(1000),
    });
    if (!roles.ok) return undefined;
    role = (await roles.text()).split("\n")[0]!.trim();
  } catch {
    return undefined; // not on EC2 (or no role): the next source, or none
  }
  if (!role) return undefined;
  return credentialsFrom(
    `${base}/latest/meta-data/iam/security-credentials/${role}`,
    { "x-aws-ec2-metadata-token": token },
    "the EC2 instance metadata service",
  );
}
