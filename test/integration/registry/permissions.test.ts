// Per-user permissions from Karapace's auth file on a registry over real HTTP (embedded broker): who
// may read, register and configure what, filtered lists, ids, and other users served meanwhile.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonCall } from "../../fixtures/http.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { karapaceUser } from "../../fixtures/karapace-auth.ts";

const PASSWORD = "perm-Secret-7";
const dir = mkdtempSync(join(tmpdir(), "sluice-registry-permissions-"));
// Hashed here as Karapace's karapace_mkpasswd does (PBKDF2-HMAC-SHA256, 5000 rounds), not by the code under test.
const user = (username: string) => karapaceUser(username, PASSWORD);
const authFile = {
  users: ["admin", "reader", "orders", "nobody", "prod"].map(user),
  permissions: [
    { username: "admin", operation: "Write", resource: "Config:" },
    { username: "admin", operation: "Write", resource: "Subject:.*" },
    { username: "reader", operation: "Read", resource: "Subject:.*" },
    { username: "orders", operation: "Write", resource: "Subject:orders-.*" },
    // A context's subjects by their qualified names.
    { username: "prod", operation: "Write", resource: "Subject::\\.prod:" },
  ],
};

let place: RegistryPlace;
let registry: TestRegistry;
const ids: Record<string, number> = {};

const as = (name: string, password = PASSWORD) => ({
  authorization: `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`,
  "content-type": "application/vnd.schemaregistry.v1+json",
});
const call = (name: string, method: string, path: string, body?: unknown) =>
  jsonCall(registry.url + path, method, body, as(name));
const record = (name: string) => ({
  schema: JSON.stringify({ type: "record", name, fields: [{ name: "id", type: "long" }] }),
});
const denied = (operation: string, resource: string) => ({
  error_code: 40301,
  message: `User is denied operation ${operation} on ${resource}`,
});

beforeAll(async () => {
  writeFileSync(join(dir, "auth.json"), JSON.stringify(authFile));
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, {
    "authentication.permissions.file": join(dir, "auth.json"),
    "authentication.skip.paths": "/",
  });
  for (const subject of ["orders-value", "payments-value"]) {
    const reply = await call("admin", "POST", `/subjects/${subject}/versions`, record(subject.split("-")[0]!));
    expect(reply.status).toBe(200);
    ids[subject] = reply.body.id;
  }
});

afterAll(async () => {
  await registry?.stop();
  if (place) removePlace(place);
  rmSync(dir, { recursive: true, force: true });
});

test("reading a subject without a permission: 403 in Confluent's RBAC shape", async () => {
  const reply = await call("orders", "GET", "/subjects/payments-value/versions");
  expect(reply.status).toBe(403);
  expect(reply.body).toEqual(denied("Read", "Subject: payments-value"));
  expect((await call("nobody", "GET", "/subjects/orders-value/versions/latest")).status).toBe(403);
  expect((await call("orders", "GET", "/subjects/orders-value/versions")).body).toEqual([1]);
});

test("a reader reads but cannot register, delete or configure", async () => {
  expect((await call("reader", "GET", "/subjects/payments-value/versions/1")).status).toBe(200);
  expect((await call("reader", "POST", "/subjects/payments-value", record("payments"))).status).toBe(200);
  const register = await call("reader", "POST", "/subjects/payments-value/versions", record("payments"));
  expect(register.status).toBe(403);
  expect(register.body).toEqual(denied("Write", "Subject: payments-value"));
  expect((await call("reader", "DELETE", "/subjects/payments-value")).status).toBe(403);
  expect((await call("reader", "PUT", "/config/payments-value", { compatibility: "NONE" })).status).toBe(403);
  const global = await call("reader", "PUT", "/config", { compatibility: "NONE" });
  expect(global.status).toBe(403);
  expect(global.body).toEqual(denied("Write", "Config"));
  expect((await call("reader", "GET", "/mode")).status).toBe(403);
  expect((await call("admin", "GET", "/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
});

test("a writer of orders-.* registers orders-value but not payments-value", async () => {
  const own = await call("orders", "POST", "/subjects/orders-value/versions", record("orders"));
  expect(own.status).toBe(200);
  expect(own.body).toEqual({ guid: expect.any(String), id: ids["orders-value"] });
  const other = await call("orders", "POST", "/subjects/payments-value/versions", record("payments"));
  expect(other.status).toBe(403);
  expect(other.body).toEqual(denied("Write", "Subject: payments-value"));
  expect((await call("orders", "PUT", "/config/orders-value", { compatibility: "FULL" })).status).toBe(200);
  expect((await call("orders", "PUT", "/config", { compatibility: "NONE" })).status).toBe(403);
  // Nothing was written under payments-value.
  expect((await call("admin", "GET", "/subjects/payments-value/versions")).body).toEqual([1]);
});

test("lists show only the subjects the user may read", async () => {
  expect((await call("orders", "GET", "/subjects")).body).toEqual(["orders-value"]);
  expect((await call("reader", "GET", "/subjects")).body).toEqual(["orders-value", "payments-value"]);
  expect((await call("nobody", "GET", "/subjects")).body).toEqual([]);
  const schemas = await call("orders", "GET", "/schemas");
  expect(schemas.body.map((s: { subject: string }) => s.subject)).toEqual(["orders-value"]);
  // Filtered before paging: the first page of one holds a readable subject.
  expect((await call("orders", "GET", "/subjects?offset=0&limit=1")).body).toEqual(["orders-value"]);
});

test("an id needs Read on a subject holding it; its subjects are filtered", async () => {
  const payments = await call("orders", "GET", `/schemas/ids/${ids["payments-value"]}`);
  expect(payments.status).toBe(403);
  expect(payments.body).toEqual(denied("Read", `Schema: ${ids["payments-value"]}`));
  expect((await call("orders", "GET", `/schemas/ids/${ids["payments-value"]}/schema`)).status).toBe(403);
  expect((await call("orders", "GET", `/schemas/ids/${ids["orders-value"]}`)).status).toBe(200);
  expect((await call("orders", "GET", "/schemas/ids/9999")).body.error_code).toBe(40403);
  // One schema under a readable and an unreadable subject: readable by id, listed with the readable one only.
  const shared = record("shared");
  const { body } = await call("admin", "POST", "/subjects/orders-key/versions", shared);
  await call("admin", "POST", "/subjects/payments-key/versions", shared);
  expect((await call("orders", "GET", `/schemas/ids/${body.id}`)).status).toBe(200);
  expect((await call("orders", "GET", `/schemas/ids/${body.id}/subjects`)).body).toEqual(["orders-key"]);
  expect((await call("reader", "GET", `/schemas/ids/${body.id}/subjects`)).body).toEqual([
    "orders-key",
    "payments-key",
  ]);
});

test("401 for wrong or unknown credentials; skip paths and permission-free routes stay open", async () => {
  for (const headers of [as("orders", "wrong"), as("stranger"), {}]) {
    const reply = await jsonCall(registry.url + "/subjects", "GET", undefined, headers);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error_code: 401, message: "Unauthorized" });
  }
  expect((await jsonCall(registry.url + "/", "GET", undefined, {})).status).toBe(200);
  expect((await call("nobody", "GET", "/schemas/types")).status).toBe(200);
});

test("denials do not hold up other users: mixed concurrent requests each get their own answer", async () => {
  const requests = Array.from({ length: 60 }, (_, i) =>
    i % 3 === 0
      ? call("orders", "GET", "/subjects/payments-value/versions").then((r) => ["denied", r.status])
      : i % 3 === 1
        ? call("reader", "GET", "/subjects/payments-value/versions/latest").then((r) => ["read", r.status])
        : call("orders", "POST", "/subjects/orders-value", record("orders")).then((r) => ["lookup", r.status]),
  );
  const answers = await Promise.all(requests);
  for (const [kind, status] of answers) expect(status).toBe(kind === "denied" ? 403 : 200);
});

test("with client certificates, the certificate's CN is the user: no password, the same permissions", async () => {
  const { certificateAuthority } = await import("../../fixtures/certificates.ts");
  const ca = certificateAuthority("Permissions CA");
  const server = ca.issue("127.0.0.1", "server");
  writeFileSync(join(dir, "server.pem"), server.key + server.cert);
  writeFileSync(join(dir, "ca.pem"), ca.cert);
  const mtlsPlace = await registryPlace("embedded");
  const https = await startTestRegistry(mtlsPlace, {
    listeners: `https://127.0.0.1:${(await import("../../fixtures/wait.ts")).freePort()}`,
    "ssl.keystore.location": join(dir, "server.pem"),
    "ssl.keystore.type": "PEM",
    "ssl.truststore.location": join(dir, "ca.pem"),
    "ssl.truststore.type": "PEM",
    "ssl.client.authentication": "REQUIRED",
    "authentication.permissions.file": join(dir, "auth.json"),
  });
  try {
    const as = (cn: string) => {
      const cert = ca.issue(cn, "client");
      return (method: string, path: string, body?: unknown) =>
        fetch(https.url + path, {
          method,
          tls: { ca: ca.cert, cert: cert.cert, key: cert.key },
          headers: { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
    };
    const reader = as("reader");
    expect((await reader("GET", "/subjects")).status).toBe(200);
    const refused = await reader("POST", "/subjects/orders-value/versions", record("orders2"));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(denied("Write", "Subject: orders-value"));
    const orders = as("orders");
    expect((await orders("POST", "/subjects/orders-value/versions", record("orders"))).status).toBe(200);
    // A certificate for a user the file does not know may read nothing.
    const stranger = as("stranger");
    expect(await (await stranger("GET", "/subjects")).json()).toEqual([]);
    expect((await stranger("GET", "/subjects/orders-value/versions")).status).toBe(403);
  } finally {
    await https.stop();
    removePlace(mtlsPlace);
  }
});

test("contexts: a qualified subject is the resource; /contexts lists readable contexts; /v1/metadata is open", async () => {
  const registered = await call(
    "prod",
    "POST",
    `/subjects/${encodeURIComponent(":.prod:orders-value")}/versions`,
    record("prodOrders"),
  );
  expect(registered.status).toBe(200);
  expect((await call("prod", "POST", "/subjects/orders-value/versions", record("orders"))).body).toEqual(
    denied("Write", "Subject: orders-value"),
  );
  expect(
    (await call("orders", "POST", `/subjects/${encodeURIComponent(":.prod:orders-value")}/versions`, record("x"))).body,
  ).toEqual(denied("Write", "Subject: :.prod:orders-value"));
  expect((await call("prod", "GET", "/contexts")).body).toEqual([".", ".prod"]);
  expect((await call("orders", "GET", "/contexts")).body).toEqual(["."]);
  expect((await call("reader", "GET", "/contexts")).body).toEqual([".", ".prod"]);
  const byId = `/schemas/ids/${registered.body.id}?subject=${encodeURIComponent(":.prod:orders-value")}`;
  expect((await call("prod", "GET", byId)).status).toBe(200);
  expect((await call("nobody", "GET", byId)).body).toEqual(denied("Read", `Schema: ${registered.body.id}`));
  expect((await call("nobody", "GET", "/v1/metadata/version")).status).toBe(200);
  expect((await call("nobody", "GET", "/v1/metadata/id")).status).toBe(200);
  // Deleting a context needs Write on it.
  expect((await call("orders", "DELETE", `/contexts/${encodeURIComponent(":.prod:")}`)).body).toEqual(
    denied("Write", "Subject: :.prod:"),
  );
  expect((await call("prod", "DELETE", `/contexts/${encodeURIComponent(":.prod:")}`)).body.error_code).toBe(42211);
});

test("data contracts: the metadata lookup and contract config need the subject; a GUID needs Read on a subject holding it", async () => {
  const contract = { ...record("contracted"), metadata: { properties: { owner: "orders-team" } } };
  expect((await call("orders", "POST", "/subjects/orders-contract/versions", contract)).status).toBe(200);
  expect(
    (await call("orders", "GET", "/subjects/orders-contract/metadata?key=owner&value=orders-team")).body,
  ).toMatchObject({ version: 1 });
  expect((await call("nobody", "GET", "/subjects/orders-contract/metadata?key=owner&value=orders-team")).body).toEqual(
    denied("Read", "Subject: orders-contract"),
  );
  expect(
    (await call("orders", "PUT", "/config/payments-value", { defaultMetadata: { properties: { a: "b" } } })).body,
  ).toEqual(denied("Write", "Subject: payments-value"));
  expect(
    (await call("reader", "PUT", "/config/orders-contract", { defaultMetadata: { properties: { a: "b" } } })).body,
  ).toEqual(denied("Write", "Subject: orders-contract"));
  const schema = record("payments").schema;
  const hex = new Bun.CryptoHasher("md5").update(schema).digest("hex");
  const guid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  expect((await call("reader", "GET", `/schemas/guids/${guid}`)).body).toEqual({ guid, schema });
  expect((await call("orders", "GET", `/schemas/guids/${guid}`)).body).toEqual(denied("Read", `Schema: ${guid}`));
  expect((await call("orders", "GET", `/schemas/guids/${guid}/ids`)).status).toBe(403);
});

test("a context base URL is judged as the request it stands for: the subject qualified with the context", async () => {
  const base = "/contexts/.prod/subjects/orders-base/versions";
  // `orders` may write `orders-base` but not `:.prod:orders-base`, the subject this path names.
  expect((await call("orders", "POST", base, record("base"))).body).toEqual(
    denied("Write", "Subject: :.prod:orders-base"),
  );
  const registered = await call("prod", "POST", base, record("base"));
  expect(registered.status).toBe(200);
  expect((await call("nobody", "GET", "/contexts/.prod/subjects")).body).toEqual([]);
  expect((await call("prod", "GET", `/contexts/.prod/schemas/ids/${registered.body.id}`)).status).toBe(200);
  expect((await call("orders", "GET", `/contexts/.prod/schemas/ids/${registered.body.id}`)).status).toBe(403);
  // /config alone under a context base is the context's config: a subject resource, not Config:.
  expect((await call("prod", "PUT", "/contexts/.prod/config", { compatibility: "NONE" })).status).toBe(200);
  expect((await call("orders", "PUT", "/contexts/.prod/config", { compatibility: "NONE" })).body).toEqual(
    denied("Write", "Subject: :.prod:"),
  );
  // Unauthenticated callers learn nothing of a bad context name.
  expect((await jsonCall(`${registry.url}/contexts/a:b/subjects`, "GET", undefined, {})).status).toBe(401);
});

test("a subject alias is judged as the subject it stands for", async () => {
  expect((await call("admin", "PUT", "/config/orders-alias", { alias: "payments-value" })).status).toBe(200);
  expect((await call("orders", "GET", "/subjects/orders-alias/versions")).body).toEqual(
    denied("Read", "Subject: payments-value"),
  );
  expect((await call("reader", "GET", "/subjects/orders-alias/versions")).body).toEqual([1]);
});
