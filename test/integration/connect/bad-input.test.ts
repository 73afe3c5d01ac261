// What `dist/sluice dev`'s Connect REST API answers to bad input, run as a user runs it: Kafka's
// status codes and {"error_code","message"} shape, never JavaScript internals; config provider
// limits (allowed.paths, allowlist.pattern) and no resolved secret in any answer; FileStream sources
// on files whose size stat cannot tell.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectClient } from "../../fixtures/connect.ts";
import { ConnectCluster } from "../../fixtures/connect-cluster.ts";
import { runSluice, startSluice, type SluiceProcess } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-bad-input-"));
const allowed = join(dir, "allowed");
const outside = join(dir, "outside");
const out = join(dir, "out");
for (const d of [allowed, outside, out, join(allowed, "secrets")]) mkdirSync(d, { recursive: true });
writeFileSync(join(allowed, "ok.properties"), "value=okfile\n");
writeFileSync(join(allowed, "secrets", "token"), "okdir");
writeFileSync(join(outside, "secret.properties"), "value=TOPSECRETfile\n");
writeFileSync(join(outside, "token"), "TOPSECRETdir");
// A link inside an allowed path: Kafka checks the path as written, so it is read.
symlinkSync(join(outside, "secret.properties"), join(allowed, "link.properties"));

const PROVIDERS = {
  CONNECT_CONFIG_PROVIDERS: "file,dir,env",
  CONNECT_CONFIG_PROVIDERS_FILE_CLASS: "org.apache.kafka.common.config.provider.FileConfigProvider",
  CONNECT_CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: `${allowed}/`,
  CONNECT_CONFIG_PROVIDERS_DIR_CLASS: "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
  CONNECT_CONFIG_PROVIDERS_DIR_PARAM_ALLOWED_PATHS: allowed,
  CONNECT_CONFIG_PROVIDERS_ENV_CLASS: "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
  CONNECT_CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: "SLUICE_OK_.*",
};
const ENV = { SLUICE_OK_VALUE: "okenv", SLUICE_SECRET_VALUE: "TOPSECRETenv" };

let sluice: SluiceProcess;
let base: string;
let api: ReturnType<typeof connectClient>;
const raw = (path: string, init: RequestInit = {}) =>
  fetch(base + path, init).then(async (r) => ({ status: r.status, text: await r.text() }));

beforeAll(async () => {
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  const args = [
    "dev",
    "--data-dir",
    join(dir, "data"),
    "--registry-listeners",
    `http://127.0.0.1:${freePort()}`,
    "--connect-listeners",
    base,
  ];
  sluice = await startSluice(args, { cwd: dir, readyUrl: `${base}/connectors`, env: { ...PROVIDERS, ...ENV } });
  api = connectClient(base);
}, 120_000);
afterAll(async () => {
  await sluice?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** No JavaScript internals: no stack frames, no engine messages. */
function expectNoInternals(text: string) {
  expect(text).not.toMatch(
    / at .*\(.*:\d+:\d+\)|is not an Object|Maximum call stack|undefined is not|Cannot read propert|TypeError|RangeError|SyntaxError|URIError|\.ts:\d+/,
  );
}

describe("config providers", () => {
  // A sink opens its file at start: the name it opened (or, for a reference left as written, the
  // name it could not create: the reference's slashes name missing folders) shows what it resolved to.
  const sinkOpening = async (name: string, reference: string) => {
    const created = await api.post("/connectors", {
      name,
      config: {
        "connector.class": "FileStreamSink",
        topics: `${name}-topic`,
        file: `${out}/${name}-${reference}.txt`,
        "my.secret": reference,
      },
    });
    expect(created.status).toBe(201);
    return waitFor(`${name}'s file`, async () => {
      const opened = readdirSync(out).find((f) => f.startsWith(`${name}-`));
      if (opened) return opened;
      const task = (await api.get(`/connectors/${name}/status`)).body.tasks?.[0];
      return task?.state === "FAILED" && `failed: ${/Couldn't find or create file '(.*)'/.exec(task.trace)?.[1]}`;
    });
  };

  test("allowed.paths and allowlist.pattern: only what they allow is read; the rest stays as written", async () => {
    const asWritten = (name: string, reference: string) => `failed: ${out}/${name}-${reference}.txt`;
    expect(await sinkOpening("file-in", `\${file:${allowed}/ok.properties:value}`)).toBe("file-in-okfile.txt");
    const fileOut = `\${file:${outside}/secret.properties:value}`;
    expect(await sinkOpening("file-out", fileOut)).toBe(asWritten("file-out", fileOut));
    // Normalised before the check, as Kafka's AllowedPaths does.
    const fileDots = `\${file:${allowed}/../outside/secret.properties:value}`;
    expect(await sinkOpening("file-dots", fileDots)).toBe(asWritten("file-dots", fileDots));
    expect(await sinkOpening("file-link", `\${file:${allowed}/link.properties:value}`)).toBe(
      "file-link-TOPSECRETfile.txt",
    );
    expect(await sinkOpening("dir-in", `\${dir:${allowed}/secrets:token}`)).toBe("dir-in-okdir.txt");
    const dirOut = `\${dir:${outside}:token}`;
    expect(await sinkOpening("dir-out", dirOut)).toBe(asWritten("dir-out", dirOut));
    expect(await sinkOpening("env-in", "${env:SLUICE_OK_VALUE}")).toBe("env-in-okenv.txt");
    expect(await sinkOpening("env-out", "${env:SLUICE_SECRET_VALUE}")).toBe("env-out-${env:SLUICE_SECRET_VALUE}.txt");
  });

  test("no REST answer carries a resolved value, status traces included", async () => {
    await api.waitForState("file-link", "RUNNING", 1);
    // A task whose error quotes the secret: its folder does not exist.
    const reference = `\${file:${allowed}/link.properties:value}`;
    await api.post("/connectors", {
      name: "trace-leak",
      config: { "connector.class": "FileStreamSink", topics: "trace-leak", file: `${out}/missing/${reference}` },
    });
    const failed = await waitFor("trace-leak's task to fail", async () => {
      const task = (await api.get("/connectors/trace-leak/tasks/0/status")).body;
      return task?.state === "FAILED" && task;
    });
    expect(failed.trace).toContain(`Couldn't find or create file '${out}/missing/${reference}'`);
    const answers = await Promise.all(
      [
        "/connectors/file-link",
        "/connectors/file-link/config",
        "/connectors/file-link/tasks",
        "/connectors/file-link/status",
        "/connectors/file-link/tasks/0/status",
        "/connectors?expand=info&expand=status",
        "/connectors/file-link/offsets",
        "/connectors/file-link/topics",
        "/connectors/trace-leak/status",
        "/connectors/trace-leak/tasks",
      ].map((p) => raw(p)),
    );
    const validate = await api.put("/connector-plugins/FileStreamSink/config/validate", {
      "connector.class": "FileStreamSink",
      topics: "t",
      file: `\${file:${allowed}/link.properties:value}`,
    });
    for (const text of [...answers.map((a) => a.text), validate.text]) expect(text).not.toContain("TOPSECRET");
    const tasks = (await api.get("/connectors/file-link/tasks")).body as { config: Record<string, string> }[];
    expect(tasks[0]!.config["my.secret"]).toBe(`\${file:${allowed}/link.properties:value}`);
  });

  test("an allowed path that is not absolute or does not exist stops the worker at start, as Kafka's", async () => {
    const args = [
      "dev",
      "--data-dir",
      join(dir, "data-bad"),
      "--registry-listeners",
      `http://127.0.0.1:${freePort()}`,
      "--connect-listeners",
      `http://127.0.0.1:${freePort()}`,
    ];
    const relative = await runSluice(args, {
      cwd: dir,
      env: { ...PROVIDERS, CONNECT_CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: "relative/dir" },
    });
    expect(relative.code).not.toBe(0);
    expect(relative.stderr).toContain("Path relative/dir is not absolute");
    const missing = await runSluice(args, {
      cwd: dir,
      env: { ...PROVIDERS, CONNECT_CONFIG_PROVIDERS_DIR_PARAM_ALLOWED_PATHS: `${dir}/nowhere/../missing` },
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`Path ${dir}/missing does not exist`);
  }, 60_000);
});

describe("bad requests get Kafka's answers, never JavaScript internals", () => {
  test("a body that is not JSON: 415; a malformed path escape: 400", async () => {
    const r = await raw("/connectors", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"name":"x","config":{}}',
    });
    expect(JSON.parse(r.text)).toEqual({ error_code: 415, message: "HTTP 415 Unsupported Media Type" });
    const put = await raw("/connectors/x/config", {
      method: "PUT",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=b",
    });
    expect(put.status).toBe(415);
    // As Jersey (measured on Kafka Connect 4.1.1): any request of these resources, and a body without a type.
    expect((await raw("/connectors", { headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect(
      (await raw("/connectors", { method: "POST", body: new TextEncoder().encode('{"name":"x","config":{}}') })).status,
    ).toBe(415);
    expect((await raw("/health", { headers: { "content-type": "text/plain" } })).status).toBe(200);
    expect((await api.get("/connector-plugins/%FF/config")).body).toEqual({
      error_code: 400,
      message: "Bad UTF-8 encoding",
    });
  });

  // Kafka Connect 4.1.1 answers bodies Jackson cannot bind with 500 and Jackson's message (measured);
  // Sluice gives the message with 400, as the body is the caller's mistake.
  test("offsets of the wrong type and absurdly deep bodies: 400 with Kafka's Jackson messages", async () => {
    await api.post("/connectors", {
      name: "offsets",
      config: { "connector.class": "FileStreamSource", topic: "offsets-topic", file: join(dir, "nothing.txt") },
    });
    await api.waitForState("offsets", "RUNNING");
    expect((await api.put("/connectors/offsets/stop")).status).toBe(204);
    await api.waitForState("offsets", "STOPPED");
    const cases: [unknown, string][] = [
      [
        [{ partition: { filename: "f" }, offset: 5 }],
        "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.String,java.lang.Object>` from Integer value (token `JsonToken.VALUE_NUMBER_INT`)",
      ],
      [
        [{ partition: "f", offset: { position: 1 } }],
        "Cannot construct instance of `java.util.LinkedHashMap` (although at least one Creator exists): no String-argument constructor/factory method to deserialize from String value ('f')",
      ],
      [
        "x",
        "Cannot deserialize value of type `java.util.ArrayList<org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset>` from String value (token `JsonToken.VALUE_STRING`)",
      ],
      [
        [5],
        "Cannot construct instance of `org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset` (although at least one Creator exists): no int/Int-argument constructor/factory method to deserialize from Number value (5)",
      ],
      [
        [{ partition: { filename: "f" }, offset: { position: "x" } }],
        "The value for the 'position' key in the offset is expected to be a Long value",
      ],
    ];
    for (const [offsets, message] of cases)
      expect((await api.patch("/connectors/offsets/offsets", { offsets })).body).toEqual({ error_code: 400, message });
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    for (const [path, body] of [
      ["/admin/loggers/x", `{"level":${deep}}`],
      ["/connectors", `{"a":${deep}}`],
    ] as const) {
      const r = await raw(path, {
        method: path === "/connectors" ? "POST" : "PUT",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(JSON.parse(r.text)).toEqual({
        error_code: 400,
        message:
          "Document nesting depth (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)",
      });
    }
    // Blank bodies (found by the OpenAPI fuzzer: they once reached Elysia's own parser, a body already
    // read, and answered "Internal server error") are empty input, null to Jackson's provider.
    for (const blank of [" ", "\f", "\n\t"]) {
      const init = (method: string) => ({ method, headers: { "content-type": "application/json" }, body: blank });
      expect(JSON.parse((await raw("/connectors/blank/config", init("PUT"))).text)).toEqual({
        error_code: 400,
        message:
          "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.String,java.lang.String>` from Null value (token `JsonToken.VALUE_NULL`)",
      });
      expect(JSON.parse((await raw("/connectors", init("POST"))).text).error_code).toBe(400);
      expect(JSON.parse((await raw("/connectors/blank/offsets", init("PATCH"))).text)).toEqual({
        error_code: 400,
        message: "Partitions / offsets need to be provided for an alter offsets request",
      });
    }
    expect((await raw("/")).status).toBe(200); // still answering
  });

  // Measured on Kafka Connect 4.1.1. fetch (and Bun's server) resolve `.`/`%2E` segments, so
  // POST /connectors/%2E arrives as POST /connectors/, which Jersey matches as /connectors.
  test("a trailing slash is the same resource: POST /connectors/%2E as text/plain is 415", async () => {
    const r = await raw("/connectors/%2E", { method: "POST", headers: { "content-type": "text/plain" } });
    expect(JSON.parse(r.text)).toEqual({ error_code: 415, message: "HTTP 415 Unsupported Media Type" });
    expect((await raw("/connectors/", { method: "PUT" })).status).toBe(405);
    expect(JSON.parse((await raw("/connectors/")).text)).toBeArray();
    // Jetty refuses a bad escape before Jersey looks at the content type.
    for (const path of ["/connectors/%FF", "/connectors/%", "/connectors/%FF/config"]) {
      expect((await raw(path, { method: "POST", headers: { "content-type": "text/plain" } })).status).toBe(400);
    }
  });

  // Kafka's resources without a body parameter never read it: no Jackson error, the resource's answer.
  test("a body sent to a route that takes none is never parsed", async () => {
    const deep = "[".repeat(1001) + "]".repeat(1001);
    const init = (method: string, body: string) => ({ method, headers: { "content-type": "application/json" }, body });
    expect(JSON.parse((await raw("/connectors/./config", init("DELETE", `{"a":${deep}}`))).text)).toEqual({
      error_code: 404,
      message: "Connector config not found",
    });
    expect(JSON.parse((await raw("/connectors/x/config", init("DELETE", deep))).text)).toEqual({
      error_code: 405,
      message: "HTTP 405 Method Not Allowed",
    });
    expect(JSON.parse((await raw("/connectors/x/pause", init("PUT", "{"))).text)).toEqual({
      error_code: 404,
      message: "Unknown connector x",
    });
    expect(JSON.parse((await raw("/connectors/x/offsets", init("DELETE", deep))).text)).toEqual({
      error_code: 404,
      message: "Connector x not found",
    });
    expect(JSON.parse((await raw("/", init("PUT", deep))).text)).toEqual({
      error_code: 405,
      message: "HTTP 405 Method Not Allowed",
    });
  });

  test("connector names . and .. are refused", async () => {
    for (const name of [".", ".."]) {
      const r = await api.post("/connectors", {
        name,
        config: { "connector.class": "FileStreamSink", topics: "t", file: join(out, "dots.txt") },
      });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("name");
    }
    expect((await api.get("/connectors")).body).not.toContain(".");
  });

  test("every endpoint: malformed escapes, wrong body types, wrong content types", async () => {
    const paths = [
      "/connectors",
      "/connectors/%FF",
      "/connectors/%FF/config",
      "/connectors/%FF/status",
      "/connectors/%FF/tasks",
      "/connectors/%FF/tasks/0/status",
      "/connectors/%FF/tasks/%FF/status",
      "/connectors/%FF/restart",
      "/connectors/%FF/tasks/0/restart",
      "/connectors/%FF/pause",
      "/connectors/%FF/resume",
      "/connectors/%FF/stop",
      "/connectors/%FF/topics",
      "/connectors/%FF/topics/reset",
      "/connectors/%FF/offsets",
      "/connector-plugins/%FF/config",
      "/connector-plugins/%FF/config/validate",
      "/connector-plugins/FileStreamSink/config/validate",
      "/admin/loggers/%FF",
      "/admin/loggers/x",
      "/connectors/offsets/config",
      "/connectors/offsets/offsets",
    ];
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    const bodies = [
      "[]",
      "null",
      "42",
      '"text"',
      "true",
      "{",
      deep,
      `{"a":${deep}}`,
      '{"offsets":null}',
      '{"level":7}',
      '{"name":null,"config":[]}',
      '{"config":{"a":{}}}',
    ];
    let probes = 0;
    for (const path of paths) {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        const variants: RequestInit[] =
          method === "GET" || method === "DELETE"
            ? [{}]
            : [
                ...bodies.map((body) => ({ body, headers: { "content-type": "application/json" } })),
                { body: "x", headers: { "content-type": "text/plain" } },
              ];
        for (const init of variants) {
          const r = await raw(path, { method, ...init });
          probes++;
          const where = `${method} ${path} ${String(init.body ?? "").slice(0, 30)}`;
          expectNoInternals(r.text);
          if (r.status >= 400) {
            const body = JSON.parse(r.text) as Record<string, unknown>;
            expect({ where, keys: Object.keys(body), code: body.error_code }).toEqual({
              where,
              keys: ["error_code", "message"],
              code: r.status,
            });
          }
          // Bodies Jackson cannot bind are 400s with its message; a JavaScript error never happens.
          expect({ where, text: r.text }).not.toEqual({
            where,
            text: expect.stringContaining("Internal server error"),
          });
        }
      }
    }
    expect(probes).toBe(paths.length * (2 + 3 * (bodies.length + 1)));
    expect((await raw("/")).status).toBe(200); // still answering
  }, 120_000);
});

describe("connect-distributed on Kafka", () => {
  const cluster = new ConnectCluster();
  beforeAll(() => cluster.setUp(1), 120_000);
  afterAll(() => cluster.tearDown());

  test("stopping an unknown connector: 404, as Kafka's DistributedHerder", async () => {
    const r = await cluster.client(0).put("/connectors/nope/stop");
    expect(r.body).toEqual({ error_code: 404, message: "Unknown connector nope" });
  });
});

describe("FileStreamSource on files whose size stat does not tell", () => {
  test("/proc/self/status and /proc/self/environ: read as a stream, no duplicates, the APIs keep answering", async () => {
    const sink = join(out, "proc.txt");
    await api.post("/connectors", {
      name: "proc-status",
      config: { "connector.class": "FileStreamSource", topic: "proc-status", file: "/proc/self/status" },
    });
    await api.post("/connectors", {
      name: "proc-environ",
      config: { "connector.class": "FileStreamSource", topic: "proc-environ", file: "/proc/self/environ" },
    });
    await api.post("/connectors", {
      name: "proc-sink",
      config: { "connector.class": "FileStreamSink", topics: "proc-status", file: sink },
    });
    await waitFor(
      "the status lines in the sink",
      () => existsSync(sink) && readFileSync(sink, "utf8").includes("VmRSS"),
    );
    // Both APIs keep answering while the tasks poll on; each line of the file arrives once.
    for (let i = 0; i < 20; i++) expect((await raw("/connectors/proc-environ/status")).status).toBe(200);
    expect(statSync(sink).size).toBeLessThan(64 * 1024);
    expect(
      readFileSync(sink, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("Name:")).length,
    ).toBe(1);
    expect((await api.get("/connectors/proc-environ/status")).body.tasks[0].state).toBe("RUNNING");
    const registry = await raw("/");
    expect(registry.status).toBe(200);
  }, 60_000);
});
