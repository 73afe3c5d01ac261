import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigProviders } from "../../../src/common/config-providers.ts";

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
  expect(() => ConfigProviders.fromWorkerConfig({ "config.providers": "x", "config.providers.x.class": "com.Nope" })).toThrow(/config.providers.x.class/);
});
