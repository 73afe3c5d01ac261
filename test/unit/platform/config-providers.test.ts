import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigProviders, hideResolved, reverseTransform } from "#src/platform/config-providers.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-providers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("file, env and directory providers resolve references; others stay as written", () => {
  writeFileSync(join(dir, "secrets.properties"), "db.password=s3cret\n");
  mkdirSync(join(dir, "secrets"));
  writeFileSync(join(dir, "secrets", "token"), "t0k3n");
  process.env.SLUICE_TEST_SECRET = "from-env";
  const providers = ConfigProviders.fromWorkerConfig({
    "config.providers": "file,env,dir",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    "config.providers.dir.class": "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
  });
  expect(
    providers.resolve({
      password: `\${file:${join(dir, "secrets.properties")}:db.password}`,
      env: "${env:SLUICE_TEST_SECRET}",
      token: `Bearer \${dir:${join(dir, "secrets")}:token}`,
      missingKey: `\${file:${join(dir, "secrets.properties")}:nope}`,
      unknownProvider: "${vault:secret/x:y}",
      plain: "value",
    }),
  ).toEqual({
    password: "s3cret",
    env: "from-env",
    token: "Bearer t0k3n",
    missingKey: `\${file:${join(dir, "secrets.properties")}:nope}`,
    unknownProvider: "${vault:secret/x:y}",
    plain: "value",
  });
});

test("an unknown provider class is an error naming the setting", () => {
  expect(() =>
    ConfigProviders.fromWorkerConfig({ "config.providers": "x", "config.providers.x.class": "com.Nope" }),
  ).toThrow(/config.providers.x.class/);
});

test("allowed.paths: normalised paths under an allowed one are read, element by element; bad entries are refused", () => {
  mkdirSync(join(dir, "ok"));
  mkdirSync(join(dir, "okay"));
  writeFileSync(join(dir, "ok", "a.properties"), "k=in\n");
  writeFileSync(join(dir, "okay", "a.properties"), "k=sibling\n");
  const providers = ConfigProviders.fromWorkerConfig({
    "config.providers": "file",
    "config.providers.file.class": "FileConfigProvider",
    "config.providers.file.param.allowed.paths": `${join(dir, "ok")}/`,
  });
  const ref = (path: string) => `\${file:${path}:k}`;
  const paths = [
    join(dir, "ok", "a.properties"),
    `${dir}/ok/./x/../a.properties`,
    join(dir, "okay", "a.properties"),
    `${dir}/ok/../okay/a.properties`,
    "ok/a.properties",
  ];
  expect(paths.map((p) => providers.resolve({ v: ref(p) }).v)).toEqual([
    "in",
    "in",
    ref(paths[2]!),
    ref(paths[3]!),
    ref(paths[4]!),
  ]);
  const withPaths = (value: string) => () =>
    ConfigProviders.fromWorkerConfig({
      "config.providers": "d",
      "config.providers.d.class": "DirectoryConfigProvider",
      "config.providers.d.param.allowed.paths": value,
    });
  expect(withPaths("relative")).toThrow("Path relative is not absolute");
  expect(withPaths(`${dir},${dir}/x/../missing`)).toThrow(`Path ${dir}/missing does not exist`);
});

test("allowlist.pattern: only variables whose whole name matches; a path is an error, as Kafka's", () => {
  process.env.SLUICE_ALLOWED_A = "a";
  process.env.SLUICE_HIDDEN_B = "b";
  const providers = ConfigProviders.fromWorkerConfig({
    "config.providers": "env",
    "config.providers.env.class": "EnvVarConfigProvider",
    "config.providers.env.param.allowlist.pattern": "SLUICE_ALLOWED_.*|SLUICE_HIDDEN",
  });
  expect(providers.resolve({ a: "${env:SLUICE_ALLOWED_A}", b: "${env:SLUICE_HIDDEN_B}" })).toEqual({
    a: "a",
    b: "${env:SLUICE_HIDDEN_B}",
  });
  expect(() => providers.resolve({ a: "${env:some/path:SLUICE_ALLOWED_A}" })).toThrow(
    "Path is not supported for EnvVarConfigProvider, invalid value 'some/path'",
  );
});

test("reverseTransform: task values of referenced keys are the references again", () => {
  const raw = { "my.secret": "${file:/s.properties:k}", file: "/out.txt", other: "x-${env:E}" };
  expect(
    reverseTransform(raw, [
      { "my.secret": "TOPSECRET", file: "/out.txt", other: "x-e", extra: "1" },
      { file: "/out.txt" },
    ]),
  ).toEqual([
    { "my.secret": "${file:/s.properties:k}", file: "/out.txt", other: "x-${env:E}", extra: "1" },
    { file: "/out.txt" },
  ]);
});

test("hideResolved: each value resolved is shown as its reference again, the longest first", () => {
  process.env.SLUICE_TEST_PART = "secret";
  process.env.SLUICE_TEST_WHOLE = "secret-and-more";
  const providers = ConfigProviders.fromWorkerConfig({
    "config.providers": "env",
    "config.providers.env.class": "EnvVarConfigProvider",
  });
  const resolved = new Map<string, string>();
  providers.resolve(
    { a: "${env:SLUICE_TEST_PART}", b: "x ${env:SLUICE_TEST_WHOLE}", c: "${env:NOT_SET_ANYWHERE}" },
    resolved,
  );
  expect(hideResolved("failed on secret-and-more, then secret", resolved)).toBe(
    "failed on ${env:SLUICE_TEST_WHOLE}, then ${env:SLUICE_TEST_PART}",
  );
});

test("the file provider reads regular files only: a device would never end", () => {
  const providers = ConfigProviders.fromWorkerConfig({
    "config.providers": "file",
    "config.providers.file.class": "FileConfigProvider",
  });
  expect(() => providers.resolve({ v: "${file:/dev/zero:k}" })).toThrow(
    "Could not read properties from file /dev/zero",
  );
});
