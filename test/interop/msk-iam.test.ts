// Amazon MSK IAM tokens: byte-identical to what AWS's own signer (aws-msk-iam-sasl-signer-python, from
// PyPI) makes from the same credentials at the same signing time, for credentials from the environment
// (with a session token), from a profile chosen by AWS_PROFILE in the shared credentials file, and from a
// profile of the config file named as the JAAS option awsProfileName. No MSK cluster can run here: this
// comparison is the proof that MSK would accept the tokens as it accepts the signer's. The STS AssumeRole
// request of the JAAS option awsRoleArn is signed as botocore signs it.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assumeRoleRequest,
  awsRegion,
  mskIamCredentials,
  mskIamToken,
  mskIamTokenAt,
  TOKEN_LIFETIME_SECONDS,
} from "#src/broker/msk-iam.ts";
import { interopPython } from "../fixtures/python.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-msk-iam-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const script = join(import.meta.dir, "python", "msk_iam_token.py");
const PYTHON_SIGNER = "aws-msk-iam-sasl-signer-python/1.0.2";
const at = new Date("2026-11-26T23:45:07Z");

writeFileSync(
  join(dir, "credentials"),
  [
    "[default]",
    "aws_access_key_id = AKIADEFAULTEXAMPLE",
    "aws_secret_access_key = default/secret+key",
    "",
    "[team]",
    "aws_access_key_id=AKIATEAMEXAMPLE",
    "aws_secret_access_key=team/Secret+Key=",
    "aws_session_token=IQoJb3JpZ2luX2VjE/team+token==",
  ].join("\n"),
);
writeFileSync(
  join(dir, "config"),
  [
    "[default]",
    "region = eu-west-1",
    "",
    "[profile ops]",
    "region = ap-southeast-2",
    "aws_access_key_id = AKIAOPSEXAMPLE",
    "aws_secret_access_key = ops+secret/key",
  ].join("\n"),
);

/** An environment with nothing from this machine's: only the given variables and this test's files. */
function environment(vars: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    TZ: "UTC",
    AWS_SHARED_CREDENTIALS_FILE: join(dir, "credentials"),
    AWS_CONFIG_FILE: join(dir, "config"),
    AWS_EC2_METADATA_DISABLED: "true",
    ...vars,
  };
}

async function pythonToken(
  env: Record<string, string>,
  region: string,
  profile = "",
): Promise<{ token: string; expiryMs: number }> {
  const proc = Bun.spawn([interopPython(), script, region, at.toISOString().replace(/\.\d{3}Z$/, "Z"), profile], {
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`msk_iam_token.py failed (exit ${code}): ${err.slice(-3000)}`);
  return JSON.parse(out) as { token: string; expiryMs: number };
}

/** `jaasProfile`: the JAAS option awsProfileName (the Python signer is given the same profile). */
async function compare(env: Record<string, string>, profile: string, jaasProfile?: string): Promise<string> {
  const region = awsRegion(env, profile);
  const ours = mskIamTokenAt(
    await mskIamCredentials(jaasProfile ? { profile: jaasProfile } : {}, env),
    region,
    at,
    PYTHON_SIGNER,
  );
  const theirs = await pythonToken(env, region, jaasProfile ?? "");
  expect(ours.value).toBe(theirs.token);
  expect(ours.expiresAtMs).toBe(theirs.expiryMs);
  expect(ours.expiresAtMs - at.getTime()).toBe(TOKEN_LIFETIME_SECONDS * 1000);
  return Buffer.from(ours.value, "base64url").toString();
}

test("credentials from the environment, with a session token; region from AWS_REGION", async () => {
  const env = environment({
    AWS_ACCESS_KEY_ID: "AKIAENVEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "env/Secret+Key/0123456789",
    AWS_SESSION_TOKEN: "FwoGZXIvYXdzE/session+token==",
    AWS_REGION: "us-east-1",
  });
  const url = await compare(env, "default");
  expect(url).toStartWith(
    "https://kafka.us-east-1.amazonaws.com/?Action=kafka-cluster%3AConnect&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAENVEXAMPLE%2F20261126%2Fus-east-1%2Fkafka-cluster%2Faws4_request&X-Amz-Date=20261126T234507Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=",
  );
  // Sluice's own token differs only in naming itself as the user agent, which is not signed.
  const own = Buffer.from(
    (
      await mskIamToken(
        {
          kind: "aws-msk-iam",
          prefix: "",
          refresh: { windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300 },
        },
        env,
        at,
      )
    ).value,
    "base64url",
  ).toString();
  expect(own.replace(/&User-Agent=.*$/, "")).toBe(url.replace(/&User-Agent=.*$/, ""));
  expect(own).toMatch(/&User-Agent=sluice%2F/);
}, 300_000);

test("a profile of the shared credentials file chosen by AWS_PROFILE; region from AWS_DEFAULT_REGION", async () => {
  const env = environment({ AWS_PROFILE: "team", AWS_DEFAULT_REGION: "us-west-2" });
  const url = await compare(env, "team");
  expect(url).toContain("X-Amz-Credential=AKIATEAMEXAMPLE%2F20261126%2Fus-west-2%2F");
  expect(url).toContain("X-Amz-Security-Token=IQoJb3JpZ2luX2VjE%2Fteam%2Btoken%3D%3D");
}, 300_000);

test("the default profile, its region from the config file", async () => {
  const env = environment({});
  expect(awsRegion(env, "default")).toBe("eu-west-1");
  const url = await compare(env, "default");
  expect(url).toContain("X-Amz-Credential=AKIADEFAULTEXAMPLE%2F20261126%2Feu-west-1%2F");
  expect(url).not.toContain("X-Amz-Security-Token");
}, 300_000);

test("a config file profile named by the JAAS option awsProfileName wins over the environment's keys", async () => {
  const env = environment({ AWS_ACCESS_KEY_ID: "AKIAIGNORED", AWS_SECRET_ACCESS_KEY: "ignored" });
  const url = await compare(env, "ops", "ops");
  expect(url).toContain("X-Amz-Credential=AKIAOPSEXAMPLE%2F20261126%2Fap-southeast-2%2F");
}, 300_000);

test("the STS AssumeRole request for awsRoleArn carries the Authorization botocore's SigV4 signer makes", async () => {
  const role = {
    arn: "arn:aws:iam::123456789012:role/msk-writer",
    sessionName: "aws-msk-iam-auth",
    externalId: "ext-1",
    stsRegion: "eu-west-1",
  };
  for (const [credentials, endpoint] of [
    [{ accessKeyId: "AKIAROLEBASE", secretAccessKey: "base/Secret+Key" }, "https://sts.eu-west-1.amazonaws.com/"],
    [
      { accessKeyId: "ASIAROLEBASE", secretAccessKey: "base/Secret+Key", sessionToken: "base/session+token=" },
      "https://sts.eu-west-1.amazonaws.com/",
    ],
  ] as const) {
    const ours = assumeRoleRequest(role, credentials, endpoint, at);
    const proc = Bun.spawn(
      [
        interopPython(),
        join(import.meta.dir, "python", "sts_sign.py"),
        ours.url,
        ours.body,
        credentials.accessKeyId,
        credentials.secretAccessKey,
        "sessionToken" in credentials ? credentials.sessionToken : "",
        "eu-west-1",
        at.toISOString().replace(/\.\d{3}Z$/, "Z"),
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) throw new Error(`sts_sign.py failed (exit ${code}): ${err.slice(-3000)}`);
    expect(ours.headers.authorization).toBe(out.trim());
  }
}, 300_000);
