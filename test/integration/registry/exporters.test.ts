// Confluent's schema exporters (/exporters) between two registries, each on its own broker (two Kafka
// clusters, and two embedded brokers): every route and its errors; an exporter that copies history,
// evolutions, soft and hard deletes and configs into a Basic-auth destination, across a restart of
// the source registry; contexts and renames; the exporters' state seen by a second instance.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonCall } from "../../fixtures/http.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type BrokerKind,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-exporters-"));
const USERS = join(dir, "users");
writeFileSync(USERS, "exporter: s3cret,admin\n");
const auth = { authorization: `Basic ${Buffer.from("exporter:s3cret").toString("base64")}` };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (name: string, fields: { name: string; type: unknown; default?: unknown }[]) =>
  JSON.stringify({ type: "record", name, fields });
const ORDER_V1 = record("Order", [{ name: "id", type: "long" }]);
const ORDER_V2 = record("Order", [
  { name: "id", type: "long" },
  { name: "note", type: "string", default: "" },
]);
const PAYMENT = record("Payment", [{ name: "amount", type: "double" }]);
const REFUND = record("Refund", [{ name: "ref", type: "string" }]);

type Api = ReturnType<typeof client>;

/** Everything a registry holds for the subjects of one context: versions (with ids and texts), what is soft-deleted, configs. */
async function snapshot(api: Api, headers: Record<string, string> = {}, prefix = "") {
  const subjects: string[] = (
    await api.get(`/subjects?deleted=true&subjectPrefix=${encodeURIComponent(prefix)}`, headers)
  ).body;
  const out: Record<string, unknown> = {};
  for (const s of [...subjects].sort()) {
    const name = s.slice(prefix.length);
    const all: number[] = (await api.get(`/subjects/${encodeURIComponent(s)}/versions?deleted=true`, headers)).body;
    const live = await api.get(`/subjects/${encodeURIComponent(s)}/versions`, headers);
    const versions = [];
    for (const v of all) {
      const body = (await api.get(`/subjects/${encodeURIComponent(s)}/versions/${v}?deleted=true`, headers)).body;
      versions.push({ version: body.version, id: body.id, schema: body.schema, references: body.references ?? [] });
    }
    const config = await api.get(`/config/${encodeURIComponent(s)}?defaultToGlobal=false`, headers);
    out[name] = {
      versions,
      live: live.status === 200 ? live.body : [],
      config: config.status === 200 ? config.body : null,
    };
  }
  return out;
}

describe.each(["embedded", "kafka"] as BrokerKind[])("schema exporters on %s", (kind) => {
  const clusters: KafkaCluster[] = [];
  const places: RegistryPlace[] = [];
  let source: TestRegistry;
  let destination: TestRegistry;
  let src: Api;
  let dst: Api;

  async function place(): Promise<RegistryPlace> {
    if (kind === "embedded") return registryPlace("embedded");
    const cluster = await startKafka();
    clusters.push(cluster);
    return { kind, bootstrap: cluster.bootstrap, topic: `_schemas_${process.pid}` };
  }

  beforeAll(async () => {
    places.push(await place(), await place());
    source = await startTestRegistry(places[0]!, {
      "exporter.max.exporters": "3",
      "exporter.poll.interval.ms": "100",
      "exporter.retry.backoff.ms": "300",
      "password.encoder.secret": "encoder-Secret-9",
    });
    destination = await startTestRegistry(places[1]!, {
      "authentication.method": "BASIC",
      "authentication.roles": "admin",
      "authentication.users.file": USERS,
    });
    src = client(source.url);
    dst = client(destination.url);
  }, 300_000);

  afterAll(async () => {
    await source?.stop();
    await destination?.stop();
    for (const c of clusters) await c.stop();
    places.forEach(removePlace);
  }, 120_000);

  const destinationConfig = () => ({
    "schema.registry.url": destination.url,
    "basic.auth.credentials.source": "USER_INFO",
    "basic.auth.user.info": "exporter:s3cret",
  });

  test("every route, with Confluent's answers and errors for bad input", async () => {
    expect((await src.get("/exporters")).body).toEqual([]);
    // Bad input: Confluent's 409 codes.
    const bad = async (body: unknown) => {
      const r = await src.post("/exporters", body);
      return [r.status, r.body.error_code];
    };
    expect(await bad({ config: destinationConfig() })).toEqual([409, 40950]);
    expect(await bad({ name: "has space", config: destinationConfig() })).toEqual([409, 40950]);
    expect(await bad({ name: "e" })).toEqual([409, 40951]);
    expect(await bad({ name: "e", config: { "schema.registry.url": "not a url" } })).toEqual([409, 40951]);
    expect(await bad({ name: "e", contextType: "CUSTOM", config: destinationConfig() })).toEqual([409, 40951]);
    expect(await bad({ name: "e", contextType: "ELSEWHERE", config: destinationConfig() })).toEqual([409, 40951]);
    expect(await bad({ name: "e", subjects: ["a*b"], config: destinationConfig() })).toEqual([409, 40952]);
    expect(await bad({ name: "e", subjects: "orders", config: destinationConfig() })).toEqual([409, 40952]);
    expect(await bad([1, 2])).toEqual([400, 400]);
    expect((await src.post("/exporters", "{")).status).toBe(400);

    // Created paused-to-be: its subjects match nothing yet.
    const created = await src.post("/exporters", {
      name: "api",
      contextType: "CUSTOM",
      context: "dr",
      subjects: ["nothing-*"],
      subjectRenameFormat: "dc_${subject}",
      config: destinationConfig(),
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ name: "api" });
    expect((await bad({ name: "api", config: destinationConfig() })).toString()).toBe("409,40960");
    expect((await src.get("/exporters")).body).toEqual(["api"]);

    // The definition as answered: the password hidden.
    const info = await src.get("/exporters/api");
    expect(info.body).toEqual({
      name: "api",
      contextType: "CUSTOM",
      context: "dr",
      subjects: ["nothing-*"],
      subjectRenameFormat: "dc_${subject}",
      config: { ...destinationConfig(), "basic.auth.user.info": "[hidden]" },
    });
    expect(JSON.stringify((await src.get("/exporters/api/config")).body)).not.toContain("s3cret");
    // Stored encrypted with password.encoder.secret.
    const stored = await source.registry.broker.fetch("_exporter_configs", 0, 0);
    const text = stored.map((r) => (r.value ? new TextDecoder().decode(r.value) : "")).join("\n");
    expect(text).toContain('"name":"api"');
    expect(text).toContain('"basic.auth.user.info":"sluice-encrypted:v1:');
    expect(text).not.toContain("s3cret");
    expect((await src.get("/exporters/api/config")).body["basic.auth.user.info"]).toBe("[hidden]");

    const status = await waitFor("the exporter running", async () => {
      const s = await src.get("/exporters/api/status");
      return s.body.state === "RUNNING" && s.body;
    });
    expect(status).toEqual({ name: "api", state: "RUNNING", offset: expect.any(Number), ts: expect.any(Number) });

    // Updates: fields replaced, config entries merged in.
    expect((await src.put("/exporters/api", { subjects: ["none-*"] })).body).toEqual({ name: "api" });
    expect((await src.put("/exporters/api/config", { "request.timeout.ms": "5000" })).body).toEqual({ name: "api" });
    const updated = (await src.get("/exporters/api")).body;
    expect(updated.subjects).toEqual(["none-*"]);
    expect(updated.config["request.timeout.ms"]).toBe("5000");
    expect(updated.config["schema.registry.url"]).toBe(destination.url);
    expect((await src.put("/exporters/api", { subjects: [""] })).body.error_code).toBe(40952);
    expect((await src.put("/exporters/api/config", ["x"])).status).toBe(400);

    // Lifecycle: reset and delete need a paused exporter; resume a paused one.
    await waitFor("running again", async () => (await src.get("/exporters/api/status")).body.state === "RUNNING");
    expect((await src.put("/exporters/api/resume")).body.error_code).toBe(40961);
    expect((await src.put("/exporters/api/reset")).body.error_code).toBe(40963);
    const notPaused = await src.delete("/exporters/api");
    expect([notPaused.status, notPaused.body.error_code]).toEqual([409, 40963]);
    expect((await src.put("/exporters/api/pause")).body).toEqual({ name: "api" });
    expect((await src.get("/exporters/api/status")).body.state).toBe("PAUSED");
    expect((await src.put("/exporters/api/pause")).status).toBe(200);
    expect((await src.put("/exporters/api/reset")).body).toEqual({ name: "api" });
    expect((await src.get("/exporters/api/status")).body).toMatchObject({ state: "PAUSED", offset: 0 });
    expect((await src.put("/exporters/api/resume")).body).toEqual({ name: "api" });
    await waitFor("resumed", async () => (await src.get("/exporters/api/status")).body.state === "RUNNING");
    await src.put("/exporters/api/pause");
    const deleted = await src.delete("/exporters/api");
    expect(deleted.status).toBe(204);

    // An unknown exporter: 40450 on every route.
    for (const [method, path] of [
      ["GET", "/exporters/api"],
      ["PUT", "/exporters/api"],
      ["DELETE", "/exporters/api"],
      ["GET", "/exporters/api/status"],
      ["GET", "/exporters/api/config"],
      ["PUT", "/exporters/api/config"],
      ["PUT", "/exporters/api/pause"],
      ["PUT", "/exporters/api/resume"],
      ["PUT", "/exporters/api/reset"],
    ] as const) {
      const r =
        method === "GET"
          ? await src.get(path)
          : method === "DELETE"
            ? await src.delete(path)
            : await src.put(path, path.endsWith("/api") || path.endsWith("/config") ? { subjects: ["x"] } : undefined);
      expect([method, path, r.status, r.body.error_code]).toEqual([method, path, 404, 40450]);
    }

    // exporter.max.exporters=3: the fourth is refused.
    for (const name of ["m1", "m2", "m3"])
      expect((await src.post("/exporters", { name, subjects: ["nothing"], config: destinationConfig() })).status).toBe(
        200,
      );
    expect(await bad({ name: "m4", config: destinationConfig() })).toEqual([409, 40964]);
    for (const name of ["m1", "m2", "m3"]) {
      await src.put(`/exporters/${name}/pause`);
      expect((await src.delete(`/exporters/${name}`)).status).toBe(204);
    }
    expect((await src.get("/exporters")).body).toEqual([]);
  }, 120_000);

  test("an exporter keeps the destination equal to the source: history, evolutions, deletes, configs, across a restart", async () => {
    // History before the exporter exists.
    expect((await src.register("orders-value", ORDER_V1)).status).toBe(200);
    expect((await src.register("orders-value", ORDER_V2)).status).toBe(200);
    expect((await src.register("payments-value", PAYMENT)).status).toBe(200);
    expect((await src.put("/config/orders-value", { compatibility: "FULL" })).status).toBe(200);
    expect((await src.register("elsewhere", PAYMENT, {})).status).toBe(200);

    const created = await src.post("/exporters", {
      name: "dr",
      contextType: "NONE",
      subjects: ["orders-*", "payments-*", "refunds-*"],
      config: destinationConfig(),
    });
    expect(created.body).toEqual({ name: "dr" });
    const selected = (all: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(all).filter(([s]) => /^(orders|payments|refunds)-/.test(s)));
    const equal = async () => {
      const want = selected(await snapshot(src));
      const have = await snapshot(dst, auth);
      return JSON.stringify(have) === JSON.stringify(want) && want;
    };
    const first = await waitFor("the destination equal to the source", equal, { timeoutMs: 60_000 });
    expect(Object.keys(first)).toEqual(["orders-value", "payments-value"]);
    // Not selected: not exported. Exported: in IMPORT mode at the destination.
    expect((await dst.get("/subjects/elsewhere/versions", auth)).status).toBe(404);
    expect((await dst.get("/mode/orders-value", auth)).body.mode).toBe("IMPORT");

    // Evolve, reference, soft-delete, then restart the source registry before the exporter may have seen it all.
    const refund = await src.register("refunds-value", REFUND);
    expect(refund.status).toBe(200);
    expect(
      (
        await src.register(
          "refunds-value",
          record("Refund", [
            { name: "ref", type: "string" },
            { name: "p", type: ["null", "Payment"], default: null },
          ]),
          {
            references: [{ name: "Payment", subject: "payments-value", version: 1 }],
          },
        )
      ).status,
    ).toBe(200);
    expect((await src.delete("/subjects/orders-value/versions/1")).status).toBe(200);
    await source.stop();
    source = await source.restart();
    src = client(source.url);
    // After the restart: a hard delete, a config change and a config removal.
    expect((await src.delete("/subjects/orders-value/versions/1?permanent=true")).status).toBe(200);
    expect((await src.put("/config/payments-value", { compatibility: "NONE" })).status).toBe(200);
    expect((await src.delete("/config/orders-value")).status).toBe(200);
    expect(
      (
        await src.register(
          "orders-value",
          record("Order", [
            { name: "id", type: "long" },
            { name: "note", type: "string", default: "" },
            { name: "at", type: "long", default: 0 },
          ]),
        )
      ).status,
    ).toBe(200);

    const last = await waitFor("the destination equal again after the restart", equal, { timeoutMs: 60_000 });
    expect(Object.keys(last)).toEqual(["orders-value", "payments-value", "refunds-value"]);
    expect((last["orders-value"] as { versions: { version: number }[] }).versions.map((v) => v.version)).toEqual([
      2, 3,
    ]);
    const status = (await src.get("/exporters/dr/status")).body;
    expect(status.state).toBe("RUNNING");
    expect(status.offset).toBeGreaterThan(0);
  }, 300_000);

  test("a subject deleted whole, soft then permanently, goes the same way at the destination", async () => {
    expect((await src.register("orders-temp", ORDER_V1)).status).toBe(200);
    expect((await src.register("orders-temp", ORDER_V2)).status).toBe(200);
    expect((await src.put("/config/orders-temp", { compatibility: "NONE" })).status).toBe(200);
    const selected = async (api: Api, headers: Record<string, string> = {}) =>
      (await snapshot(api, headers))["orders-temp"];
    const same = async () => {
      const want = await selected(src);
      return JSON.stringify(await selected(dst, auth)) === JSON.stringify(want) && want;
    };
    expect(((await waitFor("orders-temp exported", same)) as { live: number[] }).live).toEqual([1, 2]);
    expect((await src.delete("/subjects/orders-temp")).status).toBe(200);
    const soft = (await waitFor("soft-deleted at the destination", async () => {
      const s = (await same()) as { live: number[]; config: unknown } | false;
      return s && s.live.length === 0 && s;
    })) as { config: unknown };
    expect(soft.config).toBeNull();
    expect((await src.delete("/subjects/orders-temp?permanent=true")).status).toBe(200);
    await waitFor("gone from the destination", async () => (await selected(dst, auth)) === undefined);
  }, 120_000);

  test("CUSTOM context and subjectRenameFormat name the destination's subjects; reset exports again; NONE keeps a context's subjects and ids", async () => {
    expect(
      (
        await src.post("/exporters", {
          name: "renamed",
          contextType: "CUSTOM",
          context: "backup",
          subjects: ["payments-value"],
          subjectRenameFormat: "dc_${subject}",
          config: destinationConfig(),
        })
      ).status,
    ).toBe(200);
    const wanted = async () => {
      const want = (await snapshot(src))["payments-value"];
      const have = (await snapshot(dst, auth, ":.backup:"))["dc_payments-value"];
      return JSON.stringify(have) === JSON.stringify(want) && have;
    };
    await waitFor("payments-value exported as :.backup:dc_payments-value", wanted, { timeoutMs: 60_000 });
    // The destination loses the subject; a reset of the paused exporter brings it back.
    await src.put("/exporters/renamed/pause");
    expect(
      (await jsonCall(`${destination.url}/subjects/:.backup:dc_payments-value`, "DELETE", undefined, auth)).status,
    ).toBe(200);
    expect(
      (
        await jsonCall(
          `${destination.url}/subjects/:.backup:dc_payments-value?permanent=true`,
          "DELETE",
          undefined,
          auth,
        )
      ).status,
    ).toBe(200);
    expect((await src.put("/exporters/renamed/reset")).status).toBe(200);
    expect((await src.put("/exporters/renamed/resume")).status).toBe(200);
    await waitFor("exported again after the reset", wanted, { timeoutMs: 60_000 });
    await src.put("/exporters/renamed/pause");
    expect((await src.delete("/exporters/renamed")).status).toBe(204);

    // A context's subjects, NONE: the same context at the destination, with the same (per-context) ids.
    expect((await src.register(":.staging:orders-value", ORDER_V2)).status).toBe(200);
    expect(
      (
        await src.register(
          ":.staging:orders-value",
          record("Order", [
            { name: "id", type: "long" },
            { name: "note", type: "string", default: "" },
            { name: "x", type: "int", default: 0 },
          ]),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await src.post("/exporters", {
          name: "ctx",
          contextType: "NONE",
          subjects: [":.staging:*"],
          config: destinationConfig(),
        })
      ).status,
    ).toBe(200);
    await waitFor("the staging context exported", async () => {
      const want = await snapshot(src, {}, ":.staging:");
      const have = await snapshot(dst, auth, ":.staging:");
      return Object.keys(want).length === 1 && JSON.stringify(have) === JSON.stringify(want);
    });
    expect((await dst.get(`/subjects/${encodeURIComponent(":.staging:orders-value")}/versions/1`, auth)).body.id).toBe(
      (await src.get(`/subjects/${encodeURIComponent(":.staging:orders-value")}/versions/1`)).body.id,
    );
  }, 120_000);

  test("a wrong destination password puts the exporter in ERROR with its trace; fixing the config resumes it", async () => {
    await src.post("/exporters", {
      name: "badauth",
      contextType: "CUSTOM",
      context: "other",
      subjects: ["payments-value"],
      config: { ...destinationConfig(), "basic.auth.user.info": "exporter:wrong" },
    });
    const failed = await waitFor("the exporter in ERROR", async () => {
      const s = (await src.get("/exporters/badauth/status")).body;
      return s.state === "ERROR" && s;
    });
    expect(failed.trace).toContain("401");
    expect(failed.trace).not.toContain("wrong");
    // Resuming a failed exporter tries it again (and it fails again); a config update tries it at once.
    expect((await src.put("/exporters/badauth/resume")).status).toBe(200);
    await waitFor(
      "in ERROR again",
      async () =>
        (await src.get("/exporters/badauth/status")).body.ts > failed.ts &&
        (await src.get("/exporters/badauth/status")).body.state === "ERROR",
    );
    expect((await src.put("/exporters/badauth/config", { "basic.auth.user.info": "exporter:s3cret" })).status).toBe(
      200,
    );
    await waitFor("exported after the fix", async () => {
      const s = (await src.get("/exporters/badauth/status")).body;
      return s.state === "RUNNING" && (await dst.get("/subjects/:.other:payments-value/versions", auth)).status === 200;
    });
  }, 120_000);

  test("a destination version holding another schema is not overwritten: the exporter stops in ERROR", async () => {
    const own = await jsonCall(
      `${destination.url}/subjects/${encodeURIComponent(":.mine:clash-value")}/versions`,
      "POST",
      { schema: PAYMENT },
      {
        ...auth,
        "content-type": "application/vnd.schemaregistry.v1+json",
      },
    );
    expect(own.body).toEqual({ guid: expect.any(String), id: 1 });
    expect((await src.register("clash-filler", ORDER_V1)).status).toBe(200);
    const registered = await src.register("clash-value", REFUND);
    expect(registered.body.id).not.toBe(1);
    // exporter.max.exporters=3: the earlier tests' exporters make room first.
    for (const name of ["ctx", "badauth"]) {
      await src.put(`/exporters/${name}/pause`);
      await src.delete(`/exporters/${name}`);
    }
    const created = await src.post("/exporters", {
      name: "clash",
      contextType: "CUSTOM",
      context: "mine",
      subjects: ["clash-value"],
      config: destinationConfig(),
    });
    expect(created.body).toEqual({ name: "clash" });
    const failed = await waitFor("the exporter in ERROR", async () => {
      const st = (await src.get("/exporters/clash/status")).body;
      return st.state === "ERROR" && st;
    });
    expect(failed.trace).toContain("not overwritten");
    expect((await dst.get(`/subjects/${encodeURIComponent(":.mine:clash-value")}/versions/1`, auth)).body.id).toBe(1);
  }, 120_000);

  test("a destination that is down: ERROR, then exported by itself once it is up", async () => {
    const port = freePort();
    const later = await registryPlace("embedded");
    places.push(later);
    const created = await src.post("/exporters", {
      name: "later",
      contextType: "NONE",
      subjects: ["payments-value"],
      config: { "schema.registry.url": `http://127.0.0.1:${port}` },
    });
    expect(created.body).toEqual({ name: "later" });
    const failed = await waitFor("the exporter in ERROR", async () => {
      const st = (await src.get("/exporters/later/status")).body;
      return st.state === "ERROR" && st;
    });
    expect(failed.trace).toContain("unreachable");
    const up = await startTestRegistry(later, { listeners: `http://127.0.0.1:${port}` });
    try {
      await waitFor("exported once the destination is up", async () => {
        const st = (await src.get("/exporters/later/status")).body;
        return st.state === "RUNNING" && (await client(up.url).get("/subjects/payments-value/versions")).status === 200;
      });
    } finally {
      await up.stop();
    }
  }, 120_000);
});

describe("schema exporters across a leader change (two source instances on one Kafka)", () => {
  let kafka: KafkaCluster;
  let destPlace: RegistryPlace;
  let destination: TestRegistry;
  const instances: TestRegistry[] = [];

  beforeAll(async () => {
    kafka = await startKafka();
    destPlace = await registryPlace("embedded");
    destination = await startTestRegistry(destPlace);
    const place: RegistryPlace = { kind: "kafka", bootstrap: kafka.bootstrap, topic: `_schemas_${process.pid}` };
    const settings = {
      "host.name": "127.0.0.1",
      "exporter.poll.interval.ms": "100",
      "kafkagroup.session.timeout.ms": "6000",
      "kafkagroup.heartbeat.interval.ms": "1000",
    };
    instances.push(await startTestRegistry(place, settings), await startTestRegistry(place, settings));
  }, 300_000);

  afterAll(async () => {
    for (const i of instances) await i.stop().catch(() => undefined);
    await destination?.stop();
    await kafka?.stop();
    if (destPlace) removePlace(destPlace);
  }, 120_000);

  test("a follower forwards exporter writes and sees the exporters; the new leader goes on from the offset", async () => {
    const leaderIndex = await waitFor("one leader among the two", () => {
      const leads = instances.map((i) => i.registry.cluster.isLeader);
      return (
        leads.filter(Boolean).length === 1 &&
        instances.every((i) => i.registry.cluster.leaderUrl) &&
        leads.indexOf(true)
      );
    });
    const leader = instances[leaderIndex]!;
    const follower = instances[1 - leaderIndex]!;
    const api = client(follower.url);
    expect((await api.register("orders-value", ORDER_V1)).status).toBe(200);
    const created = await api.post("/exporters", {
      name: "ha",
      contextType: "NONE",
      config: { "schema.registry.url": destination.url },
    });
    expect(created.body).toEqual({ name: "ha" });
    await waitFor("the follower sees the exporter", async () => (await api.get("/exporters")).body?.[0] === "ha");
    const dst = client(destination.url);
    await waitFor(
      "orders-value exported",
      async () => (await dst.get("/subjects/orders-value/versions")).body?.length === 1,
    );
    const before = await waitFor("the exporter running", async () => {
      const s = (await api.get("/exporters/ha/status")).body;
      return s.state === "RUNNING" && s;
    });

    // The leader goes; the follower is elected and its exporter goes on.
    await leader.stop();
    await waitFor("the follower elected", () => follower.registry.cluster.isLeader, { timeoutMs: 60_000 });
    expect((await api.register("orders-value", ORDER_V2)).status).toBe(200);
    expect((await api.register("payments-value", PAYMENT)).status).toBe(200);
    await waitFor(
      "the new versions exported by the new leader",
      async () =>
        (await dst.get("/subjects/orders-value/versions")).body?.length === 2 &&
        (await dst.get("/subjects/payments-value/versions")).status === 200,
      { timeoutMs: 60_000 },
    );
    const ids = async (base: string) => (await client(base).get("/subjects/orders-value/versions/2")).body.id as number;
    expect(await ids(destination.url)).toBe(await ids(follower.url));
    const after = await waitFor("running past the old offset", async () => {
      const s = (await api.get("/exporters/ha/status")).body;
      return s.state === "RUNNING" && s.offset > before.offset && s;
    });
    expect(after.offset).toBeGreaterThan(before.offset);
  }, 300_000);
});
