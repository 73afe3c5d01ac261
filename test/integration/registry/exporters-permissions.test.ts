// The exporters under per-user permissions (Karapace's auth file, embedded broker): they are the
// registry's own settings, as global config is, so they need `Config:` whatever subjects they export.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonCall } from "../../fixtures/http.ts";
import { karapaceUser } from "../../fixtures/karapace-auth.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

const PASSWORD = "perm-Secret-31";
const dir = mkdtempSync(join(tmpdir(), "sluice-exporter-perms-"));
let place: RegistryPlace;
let registry: TestRegistry;

const call = (user: string, method: string, path: string, body?: unknown) =>
  jsonCall(registry.url + path, method, body, {
    authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString("base64")}`,
    "content-type": "application/vnd.schemaregistry.v1+json",
  });

beforeAll(async () => {
  const users = ["admin", "viewer", "writer"].map((u) => karapaceUser(u, PASSWORD));
  writeFileSync(
    join(dir, "auth.json"),
    JSON.stringify({
      users,
      permissions: [
        { username: "admin", operation: "Write", resource: "Config:" },
        { username: "admin", operation: "Write", resource: "Subject:.*" },
        { username: "viewer", operation: "Read", resource: "Config:" },
        // Write on every subject is not enough to copy them elsewhere.
        { username: "writer", operation: "Write", resource: "Subject:.*" },
      ],
    }),
  );
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, { "authentication.permissions.file": join(dir, "auth.json") });
});

afterAll(async () => {
  await registry?.stop();
  if (place) removePlace(place);
  rmSync(dir, { recursive: true, force: true });
});

test("reading the exporters needs Read on Config:, changing them Write on Config:", async () => {
  const body = { name: "e", subjects: ["nothing"], config: { "schema.registry.url": "http://127.0.0.1:1" } };
  const denied = await call("writer", "POST", "/exporters", body);
  expect([denied.status, denied.body]).toEqual([
    403,
    { error_code: 40301, message: "User is denied operation Write on Config" },
  ]);
  expect((await call("viewer", "POST", "/exporters", body)).status).toBe(403);
  expect((await call("admin", "POST", "/exporters", body)).body).toEqual({ name: "e" });
  expect((await call("writer", "GET", "/exporters")).status).toBe(403);
  expect((await call("writer", "GET", "/exporters/e/config")).status).toBe(403);
  expect((await call("viewer", "GET", "/exporters")).body).toEqual(["e"]);
  expect((await call("viewer", "GET", "/exporters/e/status")).status).toBe(200);
  expect((await call("viewer", "PUT", "/exporters/e/pause")).status).toBe(403);
  expect((await call("admin", "PUT", "/exporters/e/pause")).status).toBe(200);
  expect((await call("viewer", "DELETE", "/exporters/e")).status).toBe(403);
  expect((await call("admin", "DELETE", "/exporters/e")).status).toBe(204);
});
