// Sluice's own registry endpoints for the web console: GET /v1/sluice/cluster (the instances of the
// leader election) on the embedded broker and with three instances on one Kafka group, and
// GET /v1/sluice/permissions (what the caller may do) with Karapace's auth file, a users file and none.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";
import { karapaceUser } from "../../fixtures/karapace-auth.ts";

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});

describe("GET /v1/sluice/cluster on the embedded broker", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place, { "host.name": "127.0.0.1" });
  });
  afterAll(async () => {
    await sr?.stop();
    if (place) removePlace(place);
  });

  test("the one instance, leading", async () => {
    const reply = await client(sr.url).get("/v1/sluice/cluster");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ leader: sr.url, instances: [{ url: sr.url, leader: true, eligible: true }] });
  });
});

describe("GET /v1/sluice/cluster with three instances on Kafka", () => {
  let place: RegistryPlace;
  const instances: TestRegistry[] = [];
  beforeAll(async () => {
    place = await registryPlace("kafka");
    const group = { "schema.registry.group.id": `sr-console-${Date.now()}`, "host.name": "127.0.0.1" };
    instances.push(await startTestRegistry(place, group), await startTestRegistry(place, group));
    // The third may not lead: it is listed, not eligible.
    instances.push(await startTestRegistry(place, { ...group, "leader.eligibility": "false" }));
  }, 120_000);
  afterAll(async () => {
    for (const i of instances) await i.stop();
  }, 60_000);

  test("every instance lists all three and the same leader, the eligible one with the smallest URL", async () => {
    const urls = instances.map((i) => i.url);
    const expectedLeader = urls.slice(0, 2).sort()[0]!;
    const views = await waitFor("all three instances listed by each", async () => {
      const bodies = await Promise.all(
        instances.map(async (i) => (await client(i.url).get("/v1/sluice/cluster")).body),
      );
      return bodies.every((b) => b.instances.length === 3 && b.leader) ? bodies : undefined;
    });
    for (const view of views) {
      expect(view).toEqual({
        leader: expectedLeader,
        instances: [...urls].sort().map((url) => ({ url, leader: url === expectedLeader, eligible: url !== urls[2] })),
      });
    }
    expect(instances.find((i) => i.registry.cluster.isLeader)?.url).toBe(expectedLeader);
  });

  test("a stopped instance leaves the list of the others", async () => {
    const gone = instances.pop()!;
    await gone.stop();
    await waitFor("two instances listed by each", async () => {
      const bodies = await Promise.all(
        instances.map(async (i) => (await client(i.url).get("/v1/sluice/cluster")).body),
      );
      return (
        bodies.every(
          (b) => b.instances.length === 2 && !b.instances.some((x: { url: string }) => x.url === gone.url),
        ) || undefined
      );
    });
  });
});

describe("GET /v1/sluice/permissions", () => {
  const PASSWORD = "console-Secret-3";
  const dir = mkdtempSync(join(tmpdir(), "sluice-console-permissions-"));
  const places: RegistryPlace[] = [];
  const registries: TestRegistry[] = [];
  /** Each registry on an embedded broker of its own (one per data directory). */
  const start = async (settings: Record<string, string>) => {
    const place = await registryPlace("embedded");
    places.push(place);
    const registry = await startTestRegistry(place, settings);
    registries.push(registry);
    return registry;
  };
  const hashed = (username: string) => karapaceUser(username, PASSWORD);

  beforeAll(async () => {
    writeFileSync(
      join(dir, "auth.json"),
      JSON.stringify({
        users: ["admin", "reader", "orders", "configurer"].map(hashed),
        permissions: [
          { username: "admin", operation: "Write", resource: "Config:" },
          { username: "admin", operation: "Write", resource: "Subject:.*" },
          { username: "reader", operation: "Read", resource: "Subject:.*" },
          { username: "reader", operation: "Read", resource: "Config:" },
          { username: "orders", operation: "Write", resource: "Subject:orders-.*" },
          { username: "configurer", operation: "Write", resource: "Config:" },
        ],
      }),
    );
    await start({ "authentication.permissions.file": join(dir, "auth.json") });
  });
  afterAll(async () => {
    for (const r of registries) await r.stop();
    for (const p of places) removePlace(p);
    rmSync(dir, { recursive: true, force: true });
  });

  test("with Karapace's auth file: each user's own, read-only when it may write nothing", async () => {
    const api = client(registries[0]!.url);
    const as = async (user: string) => (await api.get("/v1/sluice/permissions", basic(user, PASSWORD))).body;
    expect(await as("admin")).toEqual({ user: "admin", readOnly: false, config: "Write" });
    expect(await as("reader")).toEqual({ user: "reader", readOnly: true, config: "Read" });
    expect(await as("orders")).toEqual({ user: "orders", readOnly: false, config: null });
    expect(await as("configurer")).toEqual({ user: "configurer", readOnly: false, config: "Write" });
  });

  test("any authenticated user may read the cluster; others get 401 with the challenge", async () => {
    const api = client(registries[0]!.url);
    expect((await api.get("/v1/sluice/permissions")).status).toBe(401);
    expect((await api.get("/v1/sluice/permissions", basic("reader", "wrong"))).status).toBe(401);
    const reader = await api.get("/v1/sluice/cluster", basic("reader", PASSWORD));
    expect(reader.status).toBe(200);
    expect(reader.body.instances).toHaveLength(1);
  });

  test("with a users file every user may do everything; without authentication there is no user", async () => {
    writeFileSync(join(dir, "users.properties"), `alice: ${PASSWORD},admin\n`);
    const withUsers = await start({
      "authentication.method": "BASIC",
      "authentication.roles": "admin",
      "authentication.users.file": join(dir, "users.properties"),
    });
    expect((await client(withUsers.url).get("/v1/sluice/permissions", basic("alice", PASSWORD))).body).toEqual({
      user: "alice",
      readOnly: false,
      config: "Write",
    });
    const open = await start({});
    expect((await client(open.url).get("/v1/sluice/permissions")).body).toEqual({
      user: null,
      readOnly: false,
      config: "Write",
    });
  });
});
