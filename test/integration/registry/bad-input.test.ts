// dist/sluice's registry fed bad input the way a careless or hostile client sends it: undecodable
// path segments, malformed bodies, wrong types. Every answer is Confluent's {"error_code","message"}
// with a 4xx, nothing leaks JavaScript internals, and nothing bad reaches the `_schemas` log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { encoder } from "#src/broker/broker.ts";
import { createBroker } from "#src/broker/index.ts";
import { jsonCall, type JsonReply } from "../../fixtures/http.ts";
import { install, type Install } from "../../fixtures/sluice-process.ts";
import { freePort } from "../../fixtures/wait.ts";
import { karapaceUser } from "../../fixtures/karapace-auth.ts";

let installed: Install;
let dir: string;

beforeAll(() => {
  installed = install("sluice-bad-input-");
  ({ dir } = installed);
}, 180_000);
afterAll(() => installed.remove());

interface Running {
  url: string;
  stop(): Promise<void>;
}

/** `sluice <command> …` with its registry on a free port, once GET / answers. */
async function start(command: "dev" | "registry", dataDir: string, extra: string[] = []): Promise<Running> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const listeners =
    command === "dev"
      ? ["--registry-listeners", url, "--connect-listeners", `http://127.0.0.1:${freePort()}`]
      : ["--listeners", url];
  const sluice = await installed.serve([command, "--data-dir", dataDir, ...listeners, ...extra], {
    readyUrl: url,
    answered: (r) => r.status < 500,
    log: join(dir, `sluice-${port}.log`),
  });
  return { url, stop: () => sluice.stop() };
}

const V1 = { "content-type": "application/vnd.schemaregistry.v1+json" };
const schema = (type: string) => ({
  schema: JSON.stringify({ type: "record", name: type, fields: [{ name: "id", type: "long" }] }),
});
const REPLACEMENT = "\uFFFD";

/** Everything the registry holds, as a client sees it. */
async function snapshot(url: string) {
  const subjects: string[] = (await jsonCall(`${url}/subjects?deleted=true`, "GET", undefined, {})).body;
  const schemas = (await jsonCall(`${url}/schemas?deleted=true`, "GET", undefined, {})).body;
  return { subjects, schemas };
}

describe("an undecodable subject (item 1)", () => {
  let registry: Running;
  let data: string;
  beforeAll(async () => {
    data = join(dir, "ids");
    registry = await start("dev", data);
  });
  afterAll(() => registry?.stop());

  test("%FF is kept as Jersey keeps it (U+FFFD), is replayed, and no id is handed out twice", async () => {
    const first = await jsonCall(`${registry.url}/subjects/%FF/versions`, "POST", schema("First"), V1);
    expect(first.status).toBe(200);
    const second = await jsonCall(`${registry.url}/subjects/other/versions`, "POST", schema("Second"), V1);
    expect(second.status).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);
    // The subject is the one a client names with the replacement character's own escape.
    const stored = await jsonCall(
      `${registry.url}/subjects/${encodeURIComponent(REPLACEMENT)}/versions/1`,
      "GET",
      undefined,
      {},
    );
    expect(stored.body).toMatchObject({ subject: REPLACEMENT, version: 1, id: first.body.id });

    const before = await snapshot(registry.url);
    expect(before.subjects).toEqual(["other", REPLACEMENT]);
    await registry.stop();
    registry = await start("dev", data);
    expect(await snapshot(registry.url)).toEqual(before);

    const third = await jsonCall(`${registry.url}/subjects/third/versions`, "POST", schema("Third"), V1);
    expect(third.status).toBe(200);
    const ids = [first.body.id, second.body.id, third.body.id];
    expect(new Set(ids).size).toBe(3);
  }, 60_000);

  test("an id in a record replay skips (the subject:null ones older versions wrote) is not handed out again", async () => {
    const data = join(dir, "older");
    const broker = createBroker({ bootstrapServers: [], dataDir: data, clientId: "test" });
    await broker.connect();
    await broker.createTopic({
      name: "_schemas",
      partitions: 1,
      replicationFactor: 1,
      config: { "cleanup.policy": "compact" },
    });
    const json = (o: object) => encoder.encode(JSON.stringify(o));
    await broker.produce("_schemas", [
      {
        partition: 0,
        key: json({ keytype: "SCHEMA", subject: "kept", version: 1, magic: 1 }),
        value: json({ subject: "kept", version: 1, id: 1, schema: '"int"', deleted: false }),
      },
      {
        partition: 0,
        key: json({ keytype: "SCHEMA", subject: null, version: 1, magic: 1 }),
        value: json({ subject: null, version: 1, id: 2, schema: '"long"', deleted: false }),
      },
    ]);
    await broker.close();
    const older = await start("dev", data);
    try {
      expect((await snapshot(older.url)).subjects).toEqual(["kept"]);
      const next = await jsonCall(`${older.url}/subjects/new/versions`, "POST", schema("New"), V1);
      expect(next.body).toEqual({ guid: expect.any(String), id: 3 });
    } finally {
      await older.stop();
    }
  }, 60_000);

  test("a malformed escape is 400 before anything is written", async () => {
    const before = await snapshot(registry.url);
    for (const path of ["/subjects/%ZZ/versions", "/subjects/a%/versions", "/subjects/%F/versions"]) {
      const reply = await jsonCall(registry.url + path, "POST", schema("Bad"), V1);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error_code: 400, message: expect.stringContaining("Malformed percent-encoding") });
    }
    expect(await snapshot(registry.url)).toEqual(before);
  });
});

describe("subject-scoped config and mode under per-user permissions (item 4)", () => {
  const PASSWORD = "edge-Secret-4";
  const user = (username: string) => karapaceUser(username, PASSWORD);
  let registry: Running;
  const as = (name: string) => ({
    ...V1,
    authorization: `Basic ${Buffer.from(`${name}:${PASSWORD}`).toString("base64")}`,
  });
  const call = (name: string, method: string, path: string, body?: unknown) =>
    jsonCall(registry.url + path, method, body, as(name));

  beforeAll(async () => {
    const file = join(dir, "auth.json");
    writeFileSync(
      file,
      JSON.stringify({
        users: [user("admin"), user("writer")],
        permissions: [
          { username: "admin", operation: "Write", resource: "Config:" },
          { username: "admin", operation: "Write", resource: "Subject:.*" },
          { username: "writer", operation: "Write", resource: "Subject:.*" },
        ],
      }),
    );
    registry = await start("registry", join(dir, "auth-data"), [`--authentication.permissions.file=${file}`]);
  });
  afterAll(() => registry?.stop());

  test("a subject-only writer cannot reach the global mode or compatibility through an undecodable subject", async () => {
    expect((await call("writer", "PUT", "/mode", { mode: "READONLY" })).body).toEqual({
      error_code: 40301,
      message: "User is denied operation Write on Config",
    });
    expect((await call("writer", "PUT", "/config/%FF", { compatibility: "NONE" })).body).toEqual({
      compatibility: "NONE",
    });
    expect((await call("writer", "PUT", "/mode/%FF", { mode: "READONLY" })).body).toEqual({ mode: "READONLY" });
    // What was set is the subject U+FFFD's, not the registry's.
    expect((await call("admin", "GET", "/mode")).body).toEqual({ mode: "READWRITE" });
    expect((await call("admin", "GET", "/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
    expect((await call("admin", "GET", `/mode/${encodeURIComponent(REPLACEMENT)}`)).body).toEqual({ mode: "READONLY" });
    expect((await call("admin", "GET", `/config/${encodeURIComponent(REPLACEMENT)}`)).body).toEqual({
      compatibilityLevel: "NONE",
    });
    expect((await call("writer", "POST", "/subjects/orders/versions", schema("Orders"))).status).toBe(200);
  });

  test("a malformed subject is refused before the route or the permission check sees it", async () => {
    for (const [method, path, body] of [
      ["PUT", "/mode/%ZZ", { mode: "READONLY" }],
      ["DELETE", "/mode/%ZZ", undefined],
      ["PUT", "/config/%", { compatibility: "NONE" }],
      ["GET", "/config/%ZZ", undefined],
    ] as const) {
      const reply = await call("writer", method, path, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error_code).toBe(400);
    }
    expect((await call("admin", "GET", "/mode")).body).toEqual({ mode: "READWRITE" });
    expect((await call("admin", "GET", "/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
  });
});

/** A reply the way Confluent shapes errors, 4xx, with no JavaScript internals in it. */
function expectClientError(reply: JsonReply, what: string): void {
  const detail = `${what} → ${reply.status} ${reply.text}`;
  expect(reply.status, detail).toBeGreaterThanOrEqual(400);
  expect(reply.status, detail).toBeLessThan(500);
  expect(Object.keys(reply.body ?? {}).sort(), detail).toEqual(["error_code", "message"]);
  expect(typeof reply.body.error_code, detail).toBe("number");
  expect(reply.body.message, detail).not.toMatch(INTERNALS);
}

// What JavaScript says when it breaks ("null is not an object (evaluating 'x.trim')", "n is not an Object."), never Confluent.
const INTERNALS =
  /is not an? (object|Object|function|constructor)\b|evaluating '|Maximum call stack|\bundefined\b|'null'|TypeError|RangeError|\.ts:\d|at \S+ \(/;

describe("bad input anywhere gets a 4xx in Confluent's shape (items 12 and 13)", () => {
  let registry: Running;
  beforeAll(async () => {
    registry = await start("dev", join(dir, "probe"));
    expect((await jsonCall(`${registry.url}/subjects/s/versions`, "POST", schema("S"), V1)).status).toBe(200);
  });
  afterAll(() => registry?.stop());

  test("an undecodable version is Confluent's 42202", async () => {
    const reply = await jsonCall(`${registry.url}/subjects/s/versions/%FF`, "GET", undefined, {});
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      error_code: 42202,
      message: `The specified version '${REPLACEMENT}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
    });
    expect((await jsonCall(`${registry.url}/subjects/s/versions/%ZZ`, "GET", undefined, {})).status).toBe(400);
  });

  test("a Protobuf schema nested deeper than protoc allows is refused at once, not after minutes of printing", async () => {
    const nested = (depth: number) => ({
      schemaType: "PROTOBUF",
      schema: `syntax = "proto3"; ${"message A { ".repeat(depth)}${"}".repeat(depth)}`,
    });
    expect((await jsonCall(`${registry.url}/subjects/deep/versions`, "POST", nested(32), V1)).status).toBe(200);
    const reply = await jsonCall(`${registry.url}/subjects/deep/versions`, "POST", nested(5000), V1);
    expect(reply.body).toEqual({
      error_code: 42201,
      message: "Invalid schema of type PROTOBUF, details: max depth exceeded",
    });
  }, 10_000);

  const paths = (p: string) =>
    [
      "%FF",
      "%ZZ",
      "%",
      "%2",
      "%00",
      "%C0%AF",
      "%ED%A0%80",
      "%EF%BF%BF",
      "9007199254740993",
      "NaN",
      "Infinity",
      "0x10",
      "%201",
      "1e3",
    ].map((bad) => p.replace("{}", bad));
  const probes: [string, string, unknown?][] = [
    ...paths("/subjects/{}/versions").map((p) => ["GET", p] as [string, string]),
    ...paths("/subjects/s/versions/{}").flatMap(
      (p) =>
        [
          ["GET", p],
          ["DELETE", p],
          ["GET", `${p}/schema`],
          ["GET", `${p}/referencedby`],
        ] as [string, string][],
    ),
    ...paths("/subjects/{}/versions/1").map((p) => ["GET", p] as [string, string]),
    ...paths("/schemas/ids/{}").flatMap(
      (p) =>
        [
          ["GET", p],
          ["GET", `${p}/schema`],
          ["GET", `${p}/versions`],
          ["GET", `${p}/subjects`],
        ] as [string, string][],
    ),
    ...paths("/subjects/{}").map((p) => ["DELETE", p] as [string, string]),
    ...paths("/compatibility/subjects/s/versions/{}").map((p) => ["POST", p, schema("S")] as [string, string, unknown]),
    ...paths("/compatibility/subjects/{}/versions").map((p) => ["POST", p, schema("S")] as [string, string, unknown]),
    ...paths("/mode/{}").map((p) => ["GET", p] as [string, string]),
    ...paths("/config/{}").map((p) => ["DELETE", p] as [string, string]),
  ];
  const bodies: [string, unknown][] = [
    ["an array", "[]"],
    ["null", "null"],
    ["a number", "42"],
    ["a string", '"x"'],
    ["deep JSON", "[".repeat(100_000) + "]".repeat(100_000)],
    ["a deep object", '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000)],
    ["a huge number id", '{"schema":"\\"string\\"","id":1e400}'],
    ["a huge version", '{"schema":"\\"string\\"","version":123456789012345678901234567890}'],
    ["schema as a number", { schema: 42 }],
    ["schema as an object", { schema: { type: "string" } }],
    ["schemaType as a number", { schema: '"string"', schemaType: 5 }],
    ["schemaType as an object", { schema: '"string"', schemaType: { a: 1 } }],
    ["schemaType unknown", { schema: '"string"', schemaType: "XML" }],
    ["references not an array", { schema: '"string"', references: { name: "a" } }],
    ["references of nulls", { schema: '"string"', references: [null] }],
    ["references of numbers", { schema: '"string"', references: [1, 2] }],
    ["a reference without fields", { schema: '"string"', references: [{}] }],
    [
      "a reference to a version too large",
      { schema: '"string"', references: [{ name: "a", subject: "s", version: 1e300 }] },
    ],
    [
      "a reference with a bad subject",
      { schema: '"string"', references: [{ name: "a", subject: "\u0000", version: 1 }] },
    ],
    [
      "a reference with a fractional version",
      { schema: '"string"', references: [{ name: "a", subject: "s", version: 1.5 }] },
    ],
    ["a schema of deep JSON", { schema: "[".repeat(100_000) + "]".repeat(100_000) }],
    ["a schema of a deep record", { schema: '{"type":"array","items":'.repeat(20_000) + '"int"' + "}".repeat(20_000) }],
    [
      "a JSON schema of deep JSON",
      { schemaType: "JSON", schema: '{"items":'.repeat(20_000) + "{}" + "}".repeat(20_000) },
    ],
    ["a protobuf schema of garbage", { schemaType: "PROTOBUF", schema: "message {{{{" }],
    ["a schema that is JSON null", { schema: "null" }],
    ["a schema that is a JSON number", { schema: "1e400" }],
    ["id as a string", { schema: '"string"', id: "7" }],
    ["metadata of the wrong type", { schema: '"string"', metadata: 5 }],
  ];
  const bodyRoutes: [string, string][] = [
    ["POST", "/subjects/s/versions"],
    ["POST", "/subjects/s"],
    ["POST", "/compatibility/subjects/s/versions/latest"],
    ["POST", "/compatibility/subjects/s/versions"],
  ];
  const settingBodies: [string, unknown][] = [
    ["an array", "[]"],
    ["null", "null"],
    ["a number", "1"],
    ["a value of the wrong type", { compatibility: 5, mode: 5 }],
    ["a value that is an object", { compatibility: { a: 1 }, mode: { a: 1 } }],
    ["a value that is null", { compatibility: null, mode: null }],
    ["deep JSON", '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000)],
  ];

  test("malformed escapes in every path parameter", async () => {
    for (const [method, path, body] of probes) {
      const reply = await jsonCall(registry.url + path, method, body, V1);
      // %FF and %00 decode to subjects that exist or not, like any other name.
      if (reply.status !== 200) expectClientError(reply, `${method} ${path}`);
    }
  });

  test("bodies of every wrong shape on the routes that take a schema", async () => {
    for (const [route, path] of bodyRoutes) {
      for (const [what, body] of bodies) {
        const reply = await jsonCall(registry.url + path, route, body, V1);
        // A compatibility check may answer for a body that only looks odd (a verbose check of a bad schema).
        if (reply.status === 200) continue;
        expectClientError(reply, `${route} ${path} with ${what}`);
      }
    }
  });

  test("bodies of every wrong shape on config and mode", async () => {
    for (const path of ["/config", "/config/s", "/mode/s"]) {
      for (const [what, body] of settingBodies) {
        // Confluent 7.4+ reads a config field sent as null as "clear it" (ConfigUpdateRequest's Optional fields).
        if (path.startsWith("/config") && what === "a value that is null") continue;
        expectClientError(await jsonCall(registry.url + path, "PUT", body, V1), `PUT ${path} with ${what}`);
      }
    }
  });

  test("wrong content types and query parameters", async () => {
    const body = JSON.stringify(schema("S"));
    for (const type of [
      "text/plain",
      "application/xml",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      ";;;",
      "application/json; charset=ebcdic",
    ]) {
      const reply = await jsonCall(`${registry.url}/subjects/s/versions`, "POST", body, { "content-type": type });
      if (reply.status !== 200) expectClientError(reply, `POST with content type ${type}`);
    }
    for (const query of [
      "offset=%FF",
      "limit=%ZZ",
      "subjectPrefix=%FF",
      "deleted=%",
      "offset=99999999999999999999",
      "limit=-5",
    ]) {
      for (const path of ["/subjects", "/schemas", "/subjects/s/versions"]) {
        const reply = await jsonCall(`${registry.url}${path}?${query}`, "GET", undefined, {});
        if (reply.status !== 200) expectClientError(reply, `GET ${path}?${query}`);
      }
    }
  });

  test("the registry still serves after all of it", async () => {
    // DELETE /subjects/s/versions/%201 above soft-deleted version 1 (version ids are trimmed, see
    // parseVersionSpec); the POSTs of S with odd but accepted content types then registered it again:
    // as in Confluent, a new version with the same id, the soft-deleted one superseded.
    const latest = await jsonCall(`${registry.url}/subjects/s/versions/latest`, "GET", undefined, {});
    expect(latest.body).toMatchObject({ subject: "s", id: 1, schema: schema("S").schema });
    expect((await jsonCall(`${registry.url}/schemas/ids/1`, "GET", undefined, {})).body).toEqual({
      guid: expect.any(String),
      schema: schema("S").schema,
    });
  });
});
