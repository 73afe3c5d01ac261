// Where Amazon MSK IAM tokens get their AWS credentials beyond the environment and the files (those are
// compared with AWS's signer in test/interop/msk-iam.test.ts): web identity federation through STS (EKS
// service accounts), a container credentials endpoint (ECS, EKS Pod Identity) and the EC2 instance
// metadata service (IMDSv2), each a local HTTP server here; and what is refused.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assumeRoleRequest, awsCredentials, awsRegion, mskIamCredentials, mskIamToken } from "#src/broker/msk-iam.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-aws-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const none = {
  HOME: dir,
  AWS_SHARED_CREDENTIALS_FILE: join(dir, "none"),
  AWS_CONFIG_FILE: join(dir, "none"),
  AWS_EC2_METADATA_DISABLED: "true",
};
const temporary = {
  AccessKeyId: "ASIATEMP",
  SecretAccessKey: "temp/secret",
  Token: "temp-session",
  Expiration: "2099-01-01T00:00:00Z",
};

test("a container credentials endpoint, with the authorization token from a file", async () => {
  const seen: (string | null)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      seen.push(request.headers.get("authorization"));
      return new URL(request.url).pathname === "/creds" ? Response.json(temporary) : new Response("", { status: 404 });
    },
  });
  try {
    writeFileSync(join(dir, "pod-token"), "pod-identity-token\n");
    const env = {
      ...none,
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${server.port}/creds`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: join(dir, "pod-token"),
    };
    expect(await awsCredentials(env, "default")).toEqual({
      accessKeyId: "ASIATEMP",
      secretAccessKey: "temp/secret",
      sessionToken: "temp-session",
    });
    expect(seen).toEqual(["pod-identity-token"]);
  } finally {
    server.stop(true);
  }
});

test("IMDSv2: a session token, the instance role, its credentials", async () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (
        path === "/latest/api/token" &&
        request.method === "PUT" &&
        request.headers.get("x-aws-ec2-metadata-token-ttl-seconds")
      )
        return new Response("imds-session");
      if (request.headers.get("x-aws-ec2-metadata-token") !== "imds-session") return new Response("", { status: 401 });
      if (path === "/latest/meta-data/iam/security-credentials/") return new Response("kafka-writer-role");
      if (path === "/latest/meta-data/iam/security-credentials/kafka-writer-role")
        return Response.json({ Code: "Success", ...temporary });
      return new Response("", { status: 404 });
    },
  });
  try {
    const env = {
      ...none,
      AWS_EC2_METADATA_DISABLED: "",
      AWS_EC2_METADATA_SERVICE_ENDPOINT: `http://127.0.0.1:${server.port}/`,
      AWS_REGION: "eu-central-1",
    };
    expect(await awsCredentials(env, "default")).toEqual({
      accessKeyId: "ASIATEMP",
      secretAccessKey: "temp/secret",
      sessionToken: "temp-session",
    });
    const token = await mskIamToken(
      {
        kind: "aws-msk-iam",
        prefix: "",
        refresh: { windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300 },
      },
      env,
    );
    expect(Buffer.from(token.value, "base64url").toString()).toStartWith(
      "https://kafka.eu-central-1.amazonaws.com/?Action=kafka-cluster%3AConnect&",
    );
  } finally {
    server.stop(true);
  }
});

test("web identity: the service account's token exchanged at STS (AssumeRoleWithWebIdentity) for the role's credentials", async () => {
  const forms: URLSearchParams[] = [];
  const sts = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const form = new URLSearchParams(await request.text());
      forms.push(form);
      if (form.get("WebIdentityToken") !== "eks-service-account-jwt")
        return new Response(
          "<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>bad token</Message></Error></ErrorResponse>",
          { status: 400 },
        );
      return new Response(
        `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIAWEB</AccessKeyId><SecretAccessKey>web/secret</SecretAccessKey><SessionToken>web-session</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`,
        { headers: { "content-type": "text/xml" } },
      );
    },
  });
  try {
    writeFileSync(join(dir, "sa-token"), "eks-service-account-jwt\n");
    const env = {
      ...none,
      AWS_WEB_IDENTITY_TOKEN_FILE: join(dir, "sa-token"),
      AWS_ROLE_ARN: "arn:aws:iam::123456789012:role/msk-writer",
      AWS_ROLE_SESSION_NAME: "pod-1",
      AWS_REGION: "us-east-1",
      AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${sts.port}`,
    };
    expect(await awsCredentials(env, "default")).toEqual({
      accessKeyId: "ASIAWEB",
      secretAccessKey: "web/secret",
      sessionToken: "web-session",
    });
    expect(Object.fromEntries(forms[0]!)).toEqual({
      Action: "AssumeRoleWithWebIdentity",
      Version: "2011-06-15",
      RoleArn: "arn:aws:iam::123456789012:role/msk-writer",
      RoleSessionName: "pod-1",
      WebIdentityToken: "eks-service-account-jwt",
    });
    writeFileSync(join(dir, "sa-token"), "expired-jwt");
    await expect(awsCredentials(env, "default")).rejects.toThrow(
      /AssumeRoleWithWebIdentity .* failed: HTTP 400: bad token/,
    );
  } finally {
    sts.stop(true);
  }
});

test("awsRoleArn: the role assumed at STS with the JAAS options' keys (signed as botocore signs, see the interop test); a named profile that exists comes first", async () => {
  const seen: { authorization: string | null; form: Record<string, string> }[] = [];
  const sts = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      seen.push({
        authorization: request.headers.get("authorization"),
        form: Object.fromEntries(new URLSearchParams(await request.text())),
      });
      return new Response(
        "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>role/secret</SecretAccessKey><SessionToken>role-session</SessionToken></Credentials></AssumeRoleResult></AssumeRoleResponse>",
      );
    },
  });
  try {
    const env = { ...none, AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${sts.port}/` };
    const role = {
      arn: "arn:aws:iam::123456789012:role/msk-writer",
      sessionName: "s1",
      externalId: "x",
      stsRegion: "aws-global",
      credentials: { accessKeyId: "AKIABASE", secretAccessKey: "base" },
    };
    expect(await mskIamCredentials({ role }, env)).toEqual({
      accessKeyId: "ASIAROLE",
      secretAccessKey: "role/secret",
      sessionToken: "role-session",
    });
    expect(seen[0]!.form).toEqual({
      Action: "AssumeRole",
      Version: "2011-06-15",
      RoleArn: role.arn,
      RoleSessionName: "s1",
      ExternalId: "x",
    });
    expect(seen[0]!.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIABASE\/\d{8}\/us-east-1\/sts\/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    const request = assumeRoleRequest(
      role,
      role.credentials,
      "https://sts.amazonaws.com/",
      new Date("2026-01-01T00:00:00Z"),
    );
    expect(request.headers.host).toBe("sts.amazonaws.com");
    writeFileSync(join(dir, "named"), "[named]\naws_access_key_id = AKIANAMED\naws_secret_access_key = named\n");
    expect(
      await mskIamCredentials({ profile: "named", role }, { ...env, AWS_SHARED_CREDENTIALS_FILE: join(dir, "named") }),
    ).toEqual({ accessKeyId: "AKIANAMED", secretAccessKey: "named" });
    expect(seen).toHaveLength(1);
  } finally {
    sts.stop(true);
  }
});

test("no credentials, no region, and profiles Sluice cannot use are explained", async () => {
  await expect(awsCredentials(none, "default")).rejects.toThrow(
    /no AWS credentials found; tried AWS_ACCESS_KEY_ID.*AWS_WEB_IDENTITY_TOKEN_FILE.*profile default.*container/,
  );
  expect(() => awsRegion(none, "default")).toThrow("AWS_REGION");
  writeFileSync(join(dir, "config"), "[profile sso]\nsso_session = corp\nregion = us-east-1\n");
  await expect(awsCredentials({ ...none, AWS_CONFIG_FILE: join(dir, "config") }, "sso")).rejects.toThrow("sso_session");
});
