// Data contracts (Confluent 7.4+): metadata and rule sets stored with each schema version, the config's
// default/override contracts and compatibility groups, the latest version by metadata, and the
// `_schemas` records they are written as — on real Kafka and on the embedded broker, through a
// restart, and through a follower that forwards to the leader.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { decoder } from "#src/broker/broker.ts";
import { schemaGuid } from "#src/registry/data-contracts.ts";
import {
  client,
  registryPlace,
  startTestRegistry,
  type BrokerKind,
  type RegistryPlace,
  type TestRegistry,
  registryForTests,
} from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";

const record = (name: string, ...fields: string[]) =>
  JSON.stringify({ type: "record", name, fields: fields.map((f) => ({ name: f, type: "string" })) });
const piiRule = {
  name: "encryptPII",
  kind: "TRANSFORM",
  type: "ENCRYPT",
  mode: "WRITEREAD",
  tags: ["PII"],
  params: { "encrypt.kek.name": "kek1", "encrypt.kms.type": "local-kms", "encrypt.kms.key.id": "mykey" },
  onFailure: "ERROR,NONE",
};
const checkRule = { name: "checkLen", kind: "CONDITION", type: "CEL", mode: "WRITE", expr: "size(message.ssn) == 9" };

describe.each(["kafka", "embedded"] as BrokerKind[])("data contracts on %s", (kind) => {
  const reg = registryForTests(kind);

  test("metadata and a rule set are kept with the version, answered wherever Confluent answers them", async () => {
    const metadata = {
      properties: { owner: "team-a", "application.major.version": "1" },
      tags: { "Person.ssn": ["PII"] },
      sensitive: ["ssn"],
    };
    const ruleSet = { domainRules: [checkRule, piiRule] };
    const r = await reg.api.register("people-value", record("Person", "name", "ssn"), { metadata, ruleSet });
    expect(r.status).toBe(200);
    // Confluent's normal forms: properties and tags sorted, a rule's defaults and `disabled` filled in.
    const storedMetadata = {
      tags: { "Person.ssn": ["PII"] },
      properties: { "application.major.version": "1", owner: "team-a" },
      sensitive: ["ssn"],
    };
    const storedRules = {
      domainRules: [
        {
          name: "checkLen",
          kind: "CONDITION",
          mode: "WRITE",
          type: "CEL",
          expr: "size(message.ssn) == 9",
          disabled: false,
        },
        {
          name: "encryptPII",
          kind: "TRANSFORM",
          mode: "WRITEREAD",
          type: "ENCRYPT",
          tags: ["PII"],
          params: { "encrypt.kek.name": "kek1", "encrypt.kms.key.id": "mykey", "encrypt.kms.type": "local-kms" },
          onFailure: "ERROR,NONE",
          disabled: false,
        },
      ],
    };
    expect(r.body).toEqual({
      guid: expect.any(String),
      id: expect.any(Number),
      version: 1,
      metadata: storedMetadata,
      ruleSet: storedRules,
      schema: record("Person", "name", "ssn"),
    });
    const id = r.body.id;
    expect((await reg.api.get("/subjects/people-value/versions/1")).body).toEqual({
      guid: expect.any(String),
      subject: "people-value",
      version: 1,
      id,
      metadata: storedMetadata,
      ruleSet: storedRules,
      schema: record("Person", "name", "ssn"),
    });
    expect((await reg.api.get(`/schemas/ids/${id}`)).body).toEqual({
      guid: expect.any(String),
      metadata: storedMetadata,
      ruleSet: storedRules,
      schema: record("Person", "name", "ssn"),
    });
    expect(
      (await reg.api.post("/subjects/people-value", { schema: record("Person", "name", "ssn"), metadata, ruleSet }))
        .body,
    ).toMatchObject({ version: 1, id, metadata: storedMetadata });
    // The same schema with the same contract is the same version.
    expect(
      (await reg.api.register("people-value", record("Person", "name", "ssn"), { metadata, ruleSet })).body.id,
    ).toBe(id);
    // Without a contract, the latest version's is taken: the same version again.
    expect((await reg.api.register("people-value", record("Person", "name", "ssn"))).body).toMatchObject({
      id,
      version: 1,
    });
    expect(
      (await reg.api.post("/subjects/people-value", { schema: record("Person", "name", "ssn") })).body,
    ).toMatchObject({ id, version: 1 });
  });

  test("a change of metadata or rules alone makes a new version with a new id; an empty schema re-registers the latest", async () => {
    const schema = record("Thing", "a");
    const v1 = await reg.api.register("things-value", schema, { metadata: { properties: { owner: "x" } } });
    const v2 = await reg.api.register("things-value", schema, { metadata: { properties: { owner: "y" } } });
    expect(v2.body).toMatchObject({ version: 2, metadata: { properties: { owner: "y" } } });
    expect(v2.body.id).not.toBe(v1.body.id);
    // Only rules given: the latest metadata is kept with them.
    const v3 = await reg.api.post("/subjects/things-value/versions", { ruleSet: { domainRules: [checkRule] } });
    expect(v3.body).toMatchObject({
      version: 3,
      schema,
      metadata: { properties: { owner: "y" } },
      ruleSet: { domainRules: [{ name: "checkLen" }] },
    });
    expect((await reg.api.get("/subjects/things-value/versions")).body).toEqual([1, 2, 3]);
    // Each id keeps its own contract.
    expect((await reg.api.get(`/schemas/ids/${v1.body.id}`)).body.metadata).toEqual({ properties: { owner: "x" } });
    // A schema without a contract answers the id alone, as before data contracts.
    expect((await reg.api.register("plain-value", record("Plain", "a"))).body).toEqual({
      guid: expect.any(String),
      id: expect.any(Number),
    });
  });

  test("the latest version with given metadata; 40403 when none has it, 40401 for an unknown subject", async () => {
    const schema = record("Versioned", "a");
    await reg.api.put("/config/versioned-value", { compatibility: "NONE" });
    await reg.api.register("versioned-value", schema, {
      metadata: { properties: { "application.major.version": "1", env: "prod" } },
    });
    await reg.api.register("versioned-value", record("Versioned", "a", "b"), {
      metadata: { properties: { "application.major.version": "2" } },
    });
    await reg.api.register("versioned-value", record("Versioned", "a", "c"), {
      metadata: { properties: { "application.major.version": "1", env: "test" } },
    });
    expect(
      (await reg.api.get("/subjects/versioned-value/metadata?key=application.major.version&value=1")).body,
    ).toMatchObject({ version: 3 });
    expect(
      (await reg.api.get("/subjects/versioned-value/metadata?key=application.major.version&key=env&value=1&value=prod"))
        .body,
    ).toMatchObject({ subject: "versioned-value", version: 1, schema });
    expect(
      (await reg.api.get("/subjects/versioned-value/metadata?key=application.major.version&value=2")).body,
    ).toMatchObject({ version: 2 });
    const none = await reg.api.get("/subjects/versioned-value/metadata?key=application.major.version&value=3");
    expect([none.status, none.body]).toEqual([404, { error_code: 40403, message: "Schema not found" }]);
    const unknown = await reg.api.get("/subjects/nope-value/metadata?key=a&value=b");
    expect([unknown.status, unknown.body.error_code]).toEqual([404, 40401]);
    // Soft-deleted versions are found with deleted=true only.
    await reg.api.delete("/subjects/versioned-value/versions/3");
    expect(
      (await reg.api.get("/subjects/versioned-value/metadata?key=application.major.version&value=1")).body,
    ).toMatchObject({ version: 1 });
    expect(
      (await reg.api.get("/subjects/versioned-value/metadata?key=application.major.version&value=1&deleted=true")).body,
    ).toMatchObject({ version: 3 });
  });

  test("config: default ← specific ← override, confluent:version, and Confluent's update rules", async () => {
    const put = await reg.api.put("/config/merged-value", {
      defaultMetadata: { properties: { owner: "default", team: "core" } },
      overrideMetadata: { properties: { env: "prod" } },
      defaultRuleSet: { domainRules: [checkRule] },
      normalize: true,
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      normalize: true,
      defaultMetadata: { properties: { owner: "default", team: "core" } },
      overrideMetadata: { properties: { env: "prod" } },
      defaultRuleSet: { domainRules: [{ ...checkRule, disabled: false }] },
    });
    // A PUT replaces only the fields it names.
    expect(
      (
        await reg.api.put("/config/merged-value", {
          compatibility: "NONE",
          compatibilityGroup: "application.major.version",
        })
      ).body,
    ).toMatchObject({
      compatibility: "NONE",
      compatibilityGroup: "application.major.version",
      normalize: true,
      overrideMetadata: { properties: { env: "prod" } },
    });
    expect((await reg.api.get("/config/merged-value")).body).toMatchObject({
      compatibilityLevel: "NONE",
      normalize: true,
      compatibilityGroup: "application.major.version",
    });
    const r = await reg.api.register("merged-value", record("Merged", "a"), {
      metadata: { properties: { owner: "me", env: "dev" } },
    });
    expect(r.body.metadata).toEqual({ properties: { env: "prod", owner: "me", team: "core" } });
    expect(r.body.ruleSet).toEqual({ domainRules: [{ ...checkRule, disabled: false }] });
    // A registration naming its version gets confluent:version; later ones keep it up to date.
    const v2 = await reg.api.register("merged-value", record("Merged", "a", "b"), { version: 2 });
    expect(v2.body).toMatchObject({
      version: 2,
      metadata: { properties: { "confluent:version": "2", env: "prod", owner: "me", team: "core" } },
    });
    const v3 = await reg.api.register("merged-value", record("Merged", "a", "b", "c"));
    expect(v3.body.metadata.properties["confluent:version"]).toBe("3");
    // null clears a field; the global config is the fallback for what a subject does not set.
    expect(
      (await reg.api.put("/config/merged-value", { overrideMetadata: null })).body.overrideMetadata,
    ).toBeUndefined();
    expect((await reg.api.get("/config/other-value?defaultToGlobal=true")).body).toEqual({
      compatibilityLevel: "BACKWARD",
    });
  });

  test("compatibilityGroup: a version is checked only against those of its group", async () => {
    await reg.api.put("/config/grouped-value", { compatibility: "BACKWARD", compatibilityGroup: "major" });
    const v1 = { metadata: { properties: { major: "1" } } };
    expect((await reg.api.register("grouped-value", record("G", "a"), v1)).status).toBe(200);
    // Incompatible with version 1 (a required field added), but of another group: accepted.
    expect(
      (await reg.api.register("grouped-value", record("G", "a", "b"), { metadata: { properties: { major: "2" } } }))
        .status,
    ).toBe(200);
    // In group 1 the same change is refused.
    const refused = await reg.api.register("grouped-value", record("G", "a", "c"), v1);
    expect([refused.status, refused.body.error_code]).toEqual([409, 409]);
  });

  test("bad contracts: 42210 with Confluent's reason for an invalid rule set, 400 for a wrong shape; nothing is written", async () => {
    const bad = async (body: object, status: number, code: number, message?: string) => {
      const r = await reg.api.post("/subjects/bad-value/versions", { schema: record("Bad", "a"), ...body });
      expect([r.status, r.body.error_code]).toEqual([status, code]);
      if (message) expect(r.body.message).toBe(message);
      expect(r.body.message).not.toMatch(/TypeError|undefined|at .*\.ts/);
    };
    await bad(
      { ruleSet: { domainRules: [{ name: "r1", kind: "CONDITION", mode: "WRITE" }] } },
      422,
      42210,
      "Missing rule type",
    );
    await bad({ ruleSet: { domainRules: [{ type: "CEL" }] } }, 422, 42210, "Missing rule name");
    await bad(
      { ruleSet: { domainRules: [{ name: "1st", type: "CEL" }] } },
      422,
      42210,
      "Illegal initial character in rule name: 1st",
    );
    await bad(
      {
        ruleSet: {
          domainRules: [
            { name: "a", type: "CEL" },
            { name: "a", type: "CEL" },
          ],
        },
      },
      422,
      42210,
      "Found rule with duplicate name 'a'",
    );
    await bad(
      { ruleSet: { domainRules: [{ name: "a", type: "CEL", mode: "UPGRADE" }] } },
      422,
      42210,
      "Domain rules can only be WRITE, READ, WRITEREAD",
    );
    await bad(
      { ruleSet: { migrationRules: [{ name: "a", type: "JSONATA", mode: "WRITE" }] } },
      422,
      42210,
      "Migration rules can only be UPGRADE, DOWNGRADE, UPDOWN",
    );
    await bad(
      { ruleSet: { domainRules: [{ name: "a", type: "CEL", mode: "WRITE", onFailure: "ERROR,NONE" }] } },
      422,
      42210,
      "Multiple actions only valid with WRITEREAD and UPDOWN",
    );
    await bad({ ruleSet: { domainRules: [{ name: "a", type: "CEL", kind: "SIDEWAYS" }] } }, 400, 400);
    await bad({ metadata: { properties: ["x"] } }, 400, 400);
    await bad({ metadata: "owner" }, 400, 400);
    const config = await reg.api.put("/config/bad-value", { defaultRuleSet: { domainRules: [{ name: "x" }] } });
    expect([config.status, config.body]).toEqual([422, { error_code: 42210, message: "Missing rule type" }]);
    expect((await reg.api.put("/config/bad-value", { normalize: "yes" })).status).toBe(400);
    expect((await reg.api.get("/subjects/bad-value/versions")).body.error_code).toBe(40401);
    expect((await reg.api.get("/config/bad-value")).body.error_code).toBe(40408);
  });

  test("Confluent 8's GUIDs: a schema found by the MD5 of its content, with its ids per context", async () => {
    const schema = record("Guided", "a");
    const plain = await reg.api.register("guided-value", schema);
    const hex = createHash("md5").update(schema).digest("hex");
    const guid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    expect((await reg.api.get(`/schemas/guids/${guid}`)).body).toEqual({ guid, schema });
    expect((await reg.api.get(`/schemas/guids/${guid.toUpperCase()}/ids`)).body).toEqual([
      { context: ".", id: plain.body.id },
    ]);
    // The same schema in another context has its own id there, and the same GUID.
    const other = await reg.api.register(":.guides:guided-value", schema);
    expect((await reg.api.get(`/schemas/guids/${guid}/ids`)).body).toEqual([
      { context: ".", id: plain.body.id },
      { context: ".guides", id: other.body.id },
    ]);
    // The contract is part of the hash.
    const metadata = { properties: { owner: "g" } };
    const withContract = await reg.api.register("guided-value", schema, { metadata });
    const contractGuid = schemaGuid(schema, [], { metadata: { tags: {}, properties: { owner: "g" }, sensitive: [] } });
    expect((await reg.api.get(`/schemas/guids/${contractGuid}`)).body).toEqual({
      guid: contractGuid,
      metadata,
      schema,
    });
    expect((await reg.api.get(`/schemas/guids/${contractGuid}/ids`)).body).toEqual([
      { context: ".", id: withContract.body.id },
    ]);
    const missing = await reg.api.get("/schemas/guids/00000000-0000-0000-0000-000000000000");
    expect([missing.status, missing.body]).toEqual([
      404,
      { error_code: 40403, message: "Schema 00000000-0000-0000-0000-000000000000 not found" },
    ]);
  });

  test("_schemas records carry the contract in Confluent's field order, and a restart serves it again", async () => {
    const r = await reg.api.register("recorded-value", record("Rec", "a"), {
      metadata: { properties: { b: "2", a: "1" } },
      ruleSet: { domainRules: [checkRule] },
    });
    await reg.api.put("/config/recorded-value", {
      compatibility: "NONE",
      defaultMetadata: { properties: { owner: "x" } },
    });
    const broker = reg.sr.registry.broker;
    const records = await broker.fetch(reg.place.topic, 0, 0, { maxBytes: 10_000_000 });
    const values = records.filter((x) => x.value !== null).map((x) => decoder.decode(x.value!));
    expect(values).toContain(
      `{"subject":"recorded-value","version":1,"id":${r.body.id},"metadata":{"properties":{"a":"1","b":"2"}},` +
        `"ruleSet":{"domainRules":[{"name":"checkLen","kind":"CONDITION","mode":"WRITE","type":"CEL","expr":"size(message.ssn) == 9","disabled":false}]},` +
        `"schema":${JSON.stringify(record("Rec", "a"))},"deleted":false}`,
    );
    expect(values).toContain(
      '{"subject":"recorded-value","compatibilityLevel":"NONE","defaultMetadata":{"properties":{"owner":"x"}}}',
    );
    await reg.restart();
    expect((await reg.api.get(`/schemas/ids/${r.body.id}`)).body.metadata).toEqual({ properties: { a: "1", b: "2" } });
    expect((await reg.api.get("/config/recorded-value")).body).toEqual({
      compatibilityLevel: "NONE",
      defaultMetadata: { properties: { owner: "x" } },
    });
    expect((await reg.api.get("/subjects/recorded-value/versions/1")).body.ruleSet).toEqual({
      domainRules: [{ ...checkRule, disabled: false }],
    });
    // The config's default metadata now joins the version's: registering the schema again makes version 2.
    expect((await reg.api.register("recorded-value", record("Rec", "a"))).body).toMatchObject({
      version: 2,
      metadata: { properties: { a: "1", b: "2", owner: "x" } },
    });
  });
});

describe("data contracts through a follower", () => {
  let place: RegistryPlace;
  const instances: TestRegistry[] = [];

  beforeAll(async () => {
    place = await registryPlace("kafka");
    const group = { "schema.registry.group.id": `sr-contracts-${Date.now()}`, "host.name": "127.0.0.1" };
    instances.push(await startTestRegistry(place, group), await startTestRegistry(place, group));
    await waitFor(
      "one leader known to both",
      async () =>
        (instances.every((i) => i.registry.cluster.leaderUrl) && instances.some((i) => i.registry.cluster.isLeader)) ||
        undefined,
    );
  }, 120_000);
  afterAll(async () => {
    for (const i of instances) await i.stop();
  }, 60_000);

  test("a registration with a contract and a config update sent to the follower are done by the leader", async () => {
    const follower = instances.find((i) => !i.registry.cluster.isLeader)!;
    const api = client(follower.url);
    expect((await api.put("/config/fwd-value", { defaultMetadata: { properties: { owner: "fwd" } } })).status).toBe(
      200,
    );
    const r = await api.register("fwd-value", record("Fwd", "a"), { ruleSet: { domainRules: [checkRule] } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 1,
      metadata: { properties: { owner: "fwd" } },
      ruleSet: { domainRules: [{ name: "checkLen" }] },
    });
    for (const i of instances) {
      await waitFor(
        "the version read back",
        async () => (await client(i.url).get("/subjects/fwd-value/versions/1")).body.metadata || undefined,
      );
    }
  });
});
