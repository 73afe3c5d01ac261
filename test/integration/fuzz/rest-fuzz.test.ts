// Property-based fuzzing of both REST APIs of `dist/sluice dev` (registry and connect worker in one
// process, on the embedded broker in a temp dir). fast-check draws requests — every route of each API
// with any method, path segments from valid names and from what breaks paths (%FF, %, .., ., unicode,
// huge numbers, 10 000 characters), bodies from valid-ish requests and their mutations (wrong types,
// nulls, arrays, nesting up to 10 000 deep, huge strings, malformed JSON, wrong content types) — and
// every answer must:
// - be below 500, also where Apache Kafka Connect answers 500 for the caller's mistake (a body Jackson
//   cannot bind, a null config value, offsets the connector refuses, stopping an unknown connector);
// - be a JSON object with a numeric error_code and a string message when it is an error;
// - show no JavaScript internals (JS_ENGINE_ERRORS anywhere; JS_SOURCE outside status traces);
// and the process must answer every request. After the run, the state (subjects, versions, ids,
// schemas, configs, modes; connectors, their configs, types, states, tasks) is recorded, the binary
// restarted on the same data dir, and the state it replays must be equal. `dev`'s connect worker keeps
// its connectors, target states and offsets in internal topics, so they come back as they were, except
// that the connector file on the command line is applied again at start, as a PUT: its connector has
// the file's config (and is created again if the fuzzer deleted it).
//
// Requests go over a raw socket: fetch would normalise `.` and `..` segments away and refuse some
// bytes. Every distinct violation (route template, status, what was wrong) is collected and the test
// fails listing them all with a request and answer each. SLUICE_FUZZ_SEED and SLUICE_FUZZ_RUNS
// override the seed and the number of requests; SLUICE_FUZZ_FAIL_FAST=1 stops at the first violation
// and lets fast-check shrink it and print its counterexample.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { install, type Install, type SluiceProcess } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.SLUICE_FUZZ_RUNS ?? 30_000);
const FAIL_FAST = process.env.SLUICE_FUZZ_FAIL_FAST === "1";
/** No request takes the binary this long; one without an answer means it stopped answering. */
const ANSWER_TIMEOUT_MS = 30_000;

/** Text of JavaScript's (and Bun's) own errors: never in an answer, status traces included. */
const JS_ENGINE_ERRORS =
  /is not an [Oo]bject|is not a function|undefined is not|null is not|Maximum call stack|TypeError|ReferenceError|SyntaxError: JSON Parse/;
/**
 * Stack frames and source paths: only in the `trace` of a connector or task status, which in Kafka
 * is a stack trace too (its frames name the code that failed).
 */
const JS_SOURCE = /at <anonymous>|\.ts:|node_modules/;

/**
 * The trace of a status ({"state":…, "worker_id":…, "version":…, "trace":…}), matched in the text
 * so that an answer cut short by a reset connection is checked the same way.
 */
const STATUS_TRACE = /("state":"[A-Z_]+"(?:,"(?:worker_id|version)":"(?:[^"\\]|\\.)*")*,"trace":")(?:[^"\\]|\\.)*"?/g;

type Api = "registry" | "connect";
interface Req {
  api: Api;
  method: string;
  /** Route template, for grouping violations, e.g. /connectors/{c}/config. */
  route: string;
  path: string;
  contentType?: string;
  body?: string;
}
interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * The server closed the connection before any answer arrived: it may refuse a body it does not read
 * (a reset can also drop an answer already sent). Whether the process still answers is checked apart.
 */
class ConnectionReset extends Error {}

/** One HTTP/1.1 request over a socket; the whole answer (Connection: close), chunked bodies decoded. */
function send(port: number, req: Req): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body, "utf8");
    const head = [
      `${req.method} ${req.path} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      "Connection: close",
      "Accept: application/json",
    ];
    if (req.contentType) head.push(`Content-Type: ${req.contentType}`);
    if (body) head.push(`Content-Length: ${body.length}`);
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in ${ANSWER_TIMEOUT_MS} ms`));
    }, ANSWER_TIMEOUT_MS);
    socket.on("connect", () => {
      socket.write(head.join("\r\n") + "\r\n\r\n");
      if (body) socket.write(body);
    });
    socket.on("data", (d: Buffer) => chunks.push(d));
    let failed: Error | undefined;
    socket.on("error", (err: Error & { code?: string }) => {
      failed = err.code === "ECONNRESET" || err.code === "EPIPE" ? new ConnectionReset(err.message) : err;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (failed && chunks.length === 0) return reject(failed);
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0)
        return reject(
          new Error(`no HTTP answer (${all.length} bytes: ${JSON.stringify(all.toString("latin1").slice(0, 200))})`),
        );
      const [statusLine, ...lines] = all.subarray(0, end).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      let rest = all.subarray(end + 4);
      if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
        const parts: Buffer[] = [];
        for (;;) {
          const eol = rest.indexOf("\r\n");
          const size = parseInt(rest.subarray(0, eol).toString("latin1"), 16);
          if (!(size > 0)) break;
          parts.push(rest.subarray(eol + 2, eol + 2 + size));
          rest = rest.subarray(eol + 2 + size + 2);
        }
        rest = Buffer.concat(parts);
      }
      resolve({ status, headers, text: rest.toString("utf8") });
    });
  });
}

// ---- arbitraries -------------------------------------------------------------------------------

const SUBJECTS = ["fz-value", "fz-key", "fz-ref"];
const CONNECTORS = ["fz-sink", "fz-src", "fz-other", "fz-file"];
const PLUGINS = [
  "FileStreamSink",
  "FileStreamSourceConnector",
  "org.apache.kafka.connect.file.FileStreamSinkConnector",
  "NoSuchConnector",
];
const LOGGERS = ["root", "org.apache.kafka.connect", "io.sluice", "no.such.logger"];

/** Path segments that break naive routing and decoding, already as they go on the wire. */
const NASTY_SEGMENTS = [
  "%FF",
  "%",
  "%2",
  "..",
  ".",
  "%2e%2e",
  "%2E",
  "%2F",
  "a%2Fb",
  "%00",
  "%20",
  "a%20b",
  "%C3%A9",
  "%E6%BC%A2%E5%AD%97",
  "%F0%9F%9A%80",
  "%EF%BF%BF",
  "%ED%A0%80",
  "+",
  "~",
  "a;b",
  "a:b",
  "'",
  "%22",
  "%5C",
  "x".repeat(10_000),
];
const NUMBERS = [
  "0",
  "1",
  "2",
  "-1",
  "-2",
  "latest",
  "99999999999999999999",
  "2147483648",
  "-2147483649",
  "9007199254740993",
  "1e3",
  "1.5",
  "NaN",
  "Infinity",
  "0x10",
  "%201",
  "01",
];

const seg = (valid: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...valid) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9._-]{0,12}$/) },
  );
const num = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
);

const AVRO = (n: number) =>
  JSON.stringify({ type: "record", name: "R", namespace: "fz", fields: [{ name: `f${n}`, type: "int", default: 0 }] });
const schemaBody = fc.oneof(
  fc.integer({ min: 0, max: 4 }).map((n) => ({ schema: AVRO(n) })),
  fc.constant({ schema: '"string"' }),
  fc.constant({
    schema: JSON.stringify({ type: "object", properties: { a: { type: "string" } } }),
    schemaType: "JSON",
  }),
  fc.constant({ schema: 'syntax = "proto3"; message M { string a = 1; }', schemaType: "PROTOBUF" }),
  fc.constant({ schema: AVRO(9), references: [{ name: "fz.Ref", subject: "fz-ref", version: 1 }] }),
  fc.constant({ schema: "{not avro", schemaType: "AVRO" }),
  fc.constant({ schema: AVRO(1), schemaType: "XML" }),
);
const LEVELS = [
  "BACKWARD",
  "BACKWARD_TRANSITIVE",
  "FORWARD",
  "FORWARD_TRANSITIVE",
  "FULL",
  "FULL_TRANSITIVE",
  "NONE",
  "full",
  "SIDEWAYS",
];
const MODES = ["READWRITE", "READONLY", "IMPORT", "READONLY_OVERRIDE", "readwrite", "NOPE"];

/**
 * FileStream connector configs. Sources read in.txt into fz-src-topic, sinks read other topics into
 * out.txt: a sink appending to the file a source reads, from the topic it writes, would feed itself
 * without end and starve the process (as it would Kafka Connect).
 */
const connectorConfig = (dir: string) =>
  fc
    .record(
      {
        "connector.class": fc.constantFrom(
          "FileStreamSink",
          "FileStreamSource",
          "org.apache.kafka.connect.file.FileStreamSinkConnector",
          "com.example.Nope",
        ),
        topics: fc.constantFrom("fz-topic", "fz-a,fz-b", ""),
        topic: fc.constantFrom("fz-src-topic", ""),
        file: fc.constantFrom("<own>", join(dir, "missing", "x.txt")),
        "tasks.max": fc.constantFrom("1", "2", "0", "-1", "zero", "99999999999999999999"),
        "value.converter": fc.constantFrom(
          "org.apache.kafka.connect.storage.StringConverter",
          "org.apache.kafka.connect.json.JsonConverter",
          "com.example.NoConverter",
        ),
        "errors.tolerance": fc.constantFrom("none", "all", "maybe"),
      },
      { requiredKeys: ["connector.class"] },
    )
    .map((config) =>
      config.file === "<own>"
        ? { ...config, file: join(dir, /Source/.test(config["connector.class"]) ? "in.txt" : "out.txt") }
        : config,
    );

/** What a mutation puts where a value was. */
const JUNK: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  false,
  "",
  [],
  {},
  [null],
  { a: null },
  "x".repeat(100_000),
  "\u0000",
  "\ud800",
  "%FF",
];

const nested = (depth: number, kind: "array" | "object") =>
  kind === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

/** A valid-ish body, or one mutated: a field of the wrong type, the whole body replaced, deep nesting, malformed JSON. */
function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> {
  const replaceField = fc.tuple(valid, fc.nat(), fc.constantFrom(...JUNK)).map(([v, i, junk]) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return JSON.stringify(junk);
    const keys = Object.keys(v as object);
    if (keys.length === 0) return JSON.stringify({ extra: junk });
    return JSON.stringify({ ...(v as object), [keys[i % keys.length]!]: junk });
  });
  return fc.oneof(
    { weight: 180, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 90, arbitrary: replaceField },
    {
      weight: 30,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...JUNK))
        .map(([v, junk]) =>
          JSON.stringify(
            typeof v === "object" && v !== null && !Array.isArray(v) ? { ...v, unknown_field: junk } : junk,
          ),
        ),
    },
    { weight: 30, arbitrary: fc.constantFrom(...JUNK).map((j) => JSON.stringify(j)) },
    {
      weight: 30,
      arbitrary: fc
        .tuple(fc.constantFrom(10, 100, 1000, 5000, 10_000), fc.constantFrom("array" as const, "object" as const))
        .map(([d, k]) => nested(d, k)),
    },
    {
      weight: 30,
      arbitrary: fc.constantFrom(
        "{not json",
        "[1,2",
        "",
        "null",
        "\u0000",
        '{"a":1}{"b":2}',
        '{"schema": "\\ud800"}',
        "\ufeff{}",
        '{"a":' + '"x'.repeat(3),
      ),
    },
    { weight: 30, arbitrary: fc.constant(undefined) },
    // Past the registry's 4 MiB body limit: a 5 MB string where a value was (rare: each costs 5 MB).
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.nat())
        .map(([v, i]) =>
          v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0
            ? JSON.stringify({ ...v, [Object.keys(v)[i % Object.keys(v).length]!]: HUGE })
            : JSON.stringify(HUGE),
        ),
    },
  );
}
const HUGE = "x".repeat(5_000_000);

const CONTENT_TYPES = [
  "application/json",
  "application/vnd.schemaregistry.v1+json",
  "application/vnd.schemaregistry+json",
  "application/octet-stream",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  "application/xml",
];
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/json") },
  { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
/** Mostly the route's own method, sometimes any other. */
const method = (own: string) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });

const query = (options: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant("") },
    { weight: 2, arbitrary: fc.subarray(options, { minLength: 1 }).map((q) => "?" + q.join("&")) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("?%FF=1", "?deleted=%", "?a=" + "b".repeat(5000), "?permanent=maybe", "?&&="),
    },
  );

interface RouteSpec {
  method: string;
  route: string;
  /** The path's segments for the route's {placeholders}, in order. */
  params: fc.Arbitrary<string>[];
  query?: string[];
  body?: fc.Arbitrary<unknown>;
}

function registryRoutes(): RouteSpec[] {
  const s = seg(SUBJECTS);
  const id = num;
  const lookupQ = [
    "normalize=true",
    "deleted=true",
    "format=resolved",
    "subject=fz-value",
    "verbose=true",
    "permanent=true",
    "force=true",
    "defaultToGlobal=true",
    "deletedOnly=true",
    "subjectPrefix=fz",
    "offset=1",
    "limit=2",
  ];
  return [
    { method: "GET", route: "/", params: [] },
    { method: "GET", route: "/schemas/types", params: [] },
    { method: "GET", route: "/schemas", params: [], query: lookupQ },
    { method: "GET", route: "/schemas/ids/{id}", params: [id], query: lookupQ },
    { method: "GET", route: "/schemas/ids/{id}/schema", params: [id], query: lookupQ },
    { method: "GET", route: "/schemas/ids/{id}/subjects", params: [id], query: lookupQ },
    { method: "GET", route: "/schemas/ids/{id}/versions", params: [id], query: lookupQ },
    { method: "GET", route: "/subjects", params: [], query: lookupQ },
    { method: "POST", route: "/subjects/{s}", params: [s], query: lookupQ, body: schemaBody },
    { method: "DELETE", route: "/subjects/{s}", params: [s], query: lookupQ },
    { method: "GET", route: "/subjects/{s}/versions", params: [s], query: lookupQ },
    { method: "POST", route: "/subjects/{s}/versions", params: [s], query: lookupQ, body: schemaBody },
    { method: "GET", route: "/subjects/{s}/versions/{v}", params: [s, num], query: lookupQ },
    { method: "GET", route: "/subjects/{s}/versions/{v}/schema", params: [s, num], query: lookupQ },
    { method: "GET", route: "/subjects/{s}/versions/{v}/referencedby", params: [s, num], query: lookupQ },
    { method: "DELETE", route: "/subjects/{s}/versions/{v}", params: [s, num], query: lookupQ },
    { method: "POST", route: "/compatibility/subjects/{s}/versions", params: [s], query: lookupQ, body: schemaBody },
    {
      method: "POST",
      route: "/compatibility/subjects/{s}/versions/{v}",
      params: [s, num],
      query: lookupQ,
      body: schemaBody,
    },
    { method: "GET", route: "/config", params: [], query: lookupQ },
    { method: "PUT", route: "/config", params: [], body: fc.record({ compatibility: fc.constantFrom(...LEVELS) }) },
    { method: "DELETE", route: "/config", params: [] },
    { method: "GET", route: "/config/{s}", params: [s], query: lookupQ },
    {
      method: "PUT",
      route: "/config/{s}",
      params: [s],
      body: fc.record({ compatibility: fc.constantFrom(...LEVELS) }),
    },
    { method: "DELETE", route: "/config/{s}", params: [s] },
    { method: "GET", route: "/mode", params: [], query: lookupQ },
    {
      method: "PUT",
      route: "/mode",
      params: [],
      query: ["force=true"],
      body: fc.record({ mode: fc.constantFrom(...MODES) }),
    },
    { method: "GET", route: "/mode/{s}", params: [s], query: lookupQ },
    {
      method: "PUT",
      route: "/mode/{s}",
      params: [s],
      query: ["force=true"],
      body: fc.record({ mode: fc.constantFrom(...MODES) }),
    },
    { method: "DELETE", route: "/mode/{s}", params: [s] },
  ];
}

function connectRoutes(dir: string): RouteSpec[] {
  const c = seg(CONNECTORS);
  const p = seg(PLUGINS);
  const l = seg(LOGGERS);
  const config = connectorConfig(dir);
  const create = fc.record(
    {
      name: fc.oneof(
        fc.constantFrom(...CONNECTORS),
        fc.constantFrom("", " fz-sink ", ".", "..", "%FF", "a/b", "é", "x".repeat(1000)),
      ),
      config,
      initial_state: fc.constantFrom("RUNNING", "PAUSED", "STOPPED", "paused", "SLEEPING"),
    },
    { requiredKeys: ["name", "config"] },
  );
  const offsets = fc.oneof(
    fc.constant({ offsets: [] }),
    fc.constant({ offsets: [{ partition: { filename: join(dir, "in.txt") }, offset: { position: 3 } }] }),
    fc.constant({
      offsets: [{ partition: { kafka_topic: "fz-topic", kafka_partition: 0 }, offset: { kafka_offset: 1 } }],
    }),
    fc.constant({ offsets: [{ partition: { kafka_topic: "fz-topic" }, offset: { kafka_offset: -5 } }] }),
    fc.constant({}),
  );
  const restartQ = ["includeTasks=true", "onlyFailed=true", "includeTasks=maybe"];
  return [
    { method: "GET", route: "/", params: [] },
    { method: "GET", route: "/connectors", params: [], query: ["expand=status", "expand=info", "expand=nope"] },
    { method: "POST", route: "/connectors", params: [], body: create },
    { method: "GET", route: "/connectors/{c}", params: [c] },
    { method: "DELETE", route: "/connectors/{c}", params: [c] },
    { method: "GET", route: "/connectors/{c}/config", params: [c] },
    { method: "PUT", route: "/connectors/{c}/config", params: [c], body: config },
    { method: "PATCH", route: "/connectors/{c}/config", params: [c], body: config },
    { method: "GET", route: "/connectors/{c}/status", params: [c] },
    { method: "GET", route: "/connectors/{c}/tasks", params: [c] },
    { method: "GET", route: "/connectors/{c}/tasks-config", params: [c] },
    { method: "GET", route: "/connectors/{c}/tasks/{t}/status", params: [c, num] },
    { method: "POST", route: "/connectors/{c}/tasks/{t}/restart", params: [c, num] },
    { method: "PUT", route: "/connectors/{c}/pause", params: [c] },
    { method: "PUT", route: "/connectors/{c}/resume", params: [c] },
    { method: "PUT", route: "/connectors/{c}/stop", params: [c] },
    { method: "POST", route: "/connectors/{c}/restart", params: [c], query: restartQ },
    { method: "GET", route: "/connectors/{c}/topics", params: [c] },
    { method: "PUT", route: "/connectors/{c}/topics/reset", params: [c] },
    { method: "GET", route: "/connectors/{c}/offsets", params: [c] },
    { method: "PATCH", route: "/connectors/{c}/offsets", params: [c], body: offsets },
    { method: "DELETE", route: "/connectors/{c}/offsets", params: [c] },
    { method: "GET", route: "/connector-plugins", params: [], query: ["connectorsOnly=false", "connectorsOnly=true"] },
    { method: "GET", route: "/connector-plugins/{p}/config", params: [p] },
    { method: "PUT", route: "/connector-plugins/{p}/config/validate", params: [p], body: config },
    { method: "GET", route: "/admin/loggers", params: [] },
    { method: "GET", route: "/admin/loggers/{l}", params: [l] },
    {
      method: "PUT",
      route: "/admin/loggers/{l}",
      params: [l],
      query: ["scope=worker", "scope=cluster"],
      body: fc.record({ level: fc.constantFrom("WARN", "INFO", "DEBUG", "ERROR", "NOPE", "") }),
    },
  ];
}

function request(api: Api, spec: RouteSpec): fc.Arbitrary<Req> {
  return fc
    .record({
      method: method(spec.method),
      params: fc.tuple(...spec.params),
      query: spec.query ? query(spec.query) : fc.constant(""),
      body: spec.body
        ? mutated(spec.body)
        : fc.oneof(
            { weight: 5, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: fc.constant('{"unexpected":true}') },
          ),
      contentType,
    })
    .map(({ method, params, query, body, contentType }) => {
      let i = 0;
      const path = spec.route.replace(/\{[a-z]+\}/g, () => params[i++]!) + query;
      return {
        api,
        method,
        route: spec.route,
        path,
        ...(body !== undefined
          ? { body, contentType: contentType ?? undefined }
          : contentType && method !== "GET"
            ? { contentType }
            : {}),
      };
    });
}

// ---- the binary -----------------------------------------------------------------------------------

interface Sluice {
  proc: SluiceProcess["proc"];
  registry: number;
  connect: number;
  output: () => string;
}

describe("REST fuzzing of dist/sluice dev (registry + connect)", () => {
  let installed: Install;
  let dir: string;
  const ports = { registry: freePort(), connect: freePort() };
  let sluice: Sluice;
  const violations = new Map<string, string>();
  /** The connector of the command line (a standalone worker's durable connector). */
  const FILE_CONNECTOR_FILE = "fz-file.properties";
  let fileConnector: Record<string, string>;

  async function start(): Promise<Sluice> {
    const log = join(dir, "sluice.log");
    const { proc } = await installed.serve(
      [
        "dev",
        "--data-dir",
        join(dir, "data"),
        "--registry-listeners",
        `http://127.0.0.1:${ports.registry}`,
        "--connect-listeners",
        `http://127.0.0.1:${ports.connect}`,
        FILE_CONNECTOR_FILE,
      ],
      {
        readyUrl: [`http://127.0.0.1:${ports.registry}/subjects`, `http://127.0.0.1:${ports.connect}/connectors`],
        log,
        timeoutMs: 60_000,
      },
    );
    return { proc, ...ports, output: () => readFileSync(log, "utf8") };
  }

  async function stop(): Promise<void> {
    if (sluice.proc.exitCode === null) {
      sluice.proc.kill("SIGTERM");
      const timer = setTimeout(() => sluice.proc.kill("SIGKILL"), 20_000);
      await sluice.proc.exited;
      clearTimeout(timer);
    }
  }

  beforeAll(async () => {
    installed = install("sluice-fuzz-");
    dir = installed.dir;
    fileConnector = {
      name: "fz-file",
      "connector.class": "FileStreamSink",
      topics: "fz-topic",
      file: join(dir, "file-out.txt"),
      "tasks.max": "1",
    };
    writeFileSync(join(dir, "in.txt"), "one\ntwo\nthree\n");
    writeFileSync(
      join(dir, FILE_CONNECTOR_FILE),
      Object.entries(fileConnector)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n") + "\n",
    );
    sluice = await start();
  }, 180_000);

  afterAll(async () => {
    if (sluice) await stop();
    await installed?.remove();
  }, 60_000);

  const describeReq = (r: Req) =>
    `${r.api} ${r.method} ${r.path.length > 300 ? r.path.slice(0, 300) + `…(${r.path.length} chars)` : r.path}` +
    (r.contentType ? ` [Content-Type: ${r.contentType}]` : "") +
    (r.body !== undefined
      ? ` body ${r.body.length > 300 ? JSON.stringify(r.body.slice(0, 300)) + `…(${r.body.length} chars)` : JSON.stringify(r.body)}`
      : "");
  const describeReply = (a: Reply) =>
    `${a.status} ${a.headers["content-type"] ?? "(no content-type)"} ${a.text.length > 500 ? a.text.slice(0, 500) + "…" : a.text}`;

  /** What is wrong with an answer, or nothing. */
  function check(r: Req, a: Reply): string[] {
    const wrong: string[] = [];
    let parsed: unknown;
    try {
      parsed = a.text === "" ? undefined : JSON.parse(a.text);
    } catch {
      parsed = undefined;
    }
    const message = (parsed as { message?: unknown } | undefined)?.message;
    if (!(a.status >= 100 && a.status < 600)) wrong.push("no HTTP status");
    if (a.status >= 500) wrong.push(`status ${a.status}`);
    if (a.status >= 400 && r.method !== "HEAD") {
      const ok =
        parsed !== null &&
        typeof parsed === "object" &&
        !Array.isArray(parsed) &&
        typeof (parsed as { error_code?: unknown }).error_code === "number" &&
        typeof message === "string";
      if (!ok) wrong.push("error body is not JSON with error_code and message");
    }
    const js = JS_ENGINE_ERRORS.exec(a.text) ?? JS_SOURCE.exec(a.text.replace(STATUS_TRACE, '$1"'));
    if (js) wrong.push(`JavaScript internals in the answer (${JSON.stringify(js[0])})`);
    return wrong;
  }

  test(`every answer is below 500, a JSON error, free of JS internals; the process answers throughout (seed ${SEED}, ${RUNS} requests)`, async () => {
    const requests = fc.oneof(
      ...registryRoutes().map((spec) => request("registry", spec)),
      ...connectRoutes(dir).map((spec) => request("connect", spec)),
    );
    let count = 0;
    const statuses = new Map<string, number>();
    const resets: string[] = [];
    const slowest: [number, string][] = [];
    const answers = async () =>
      (await send(sluice.registry, { api: "registry", method: "GET", route: "/", path: "/" }).then(
        (a) => a.status === 200,
        () => false,
      )) &&
      (await send(sluice.connect, { api: "connect", method: "GET", route: "/", path: "/" }).then(
        (a) => a.status === 200,
        () => false,
      ));
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        count++;
        let a: Reply;
        const started = performance.now();
        try {
          a = await send(r.api === "registry" ? sluice.registry : sluice.connect, r);
          const ms = performance.now() - started;
          slowest.push([ms, describeReq(r)]);
          if (ms > 2000) console.error(`request ${count} took ${ms.toFixed(0)} ms: ${describeReq(r)}`);
          if (slowest.length > 20) slowest.sort((x, y) => y[0] - x[0]).splice(5);
        } catch (err) {
          if (err instanceof ConnectionReset && (await answers())) {
            statuses.set(`${r.api} reset`, (statuses.get(`${r.api} reset`) ?? 0) + 1);
            resets.push(describeReq(r));
            return;
          }
          const why = `the process did not answer (${err instanceof Error ? err.message : String(err)}; exit code ${sluice.proc.exitCode})`;
          violations.set(
            `${r.api} ${r.method} ${r.route}: ${why}`,
            `${describeReq(r)}\n    → ${why}\n    output: ${sluice.output().slice(-2000)}`,
          );
          throw new Error(`${describeReq(r)}: ${why}`);
        }
        const kind = `${r.api} ${a.status}`;
        statuses.set(kind, (statuses.get(kind) ?? 0) + 1);
        const wrong = check(r, a);
        if (wrong.length === 0) return;
        const key = `${r.api} ${r.method} ${r.route}: ${wrong.join("; ")}`;
        if (!violations.has(key)) violations.set(key, `${describeReq(r)}\n    → ${describeReply(a)}`);
        if (FAIL_FAST) throw new Error(`${wrong.join("; ")}\n${describeReq(r)}\n→ ${describeReply(a)}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: !FAIL_FAST },
    );
    // What was exercised: answers by API and status.
    console.log(
      `${count} requests, answers: ${[...statuses]
        .sort()
        .map(([k, n]) => `${k}×${n}`)
        .join(", ")}`,
    );
    console.log(
      `slowest answers:\n  ${slowest
        .sort((x, y) => y[0] - x[0])
        .slice(0, 5)
        .map(([ms, r]) => `${ms.toFixed(0)} ms ${r}`)
        .join("\n  ")}`,
    );
    if (resets.length > 0)
      console.log(
        `connections reset before an answer (the process answered on after each):\n  ${resets.slice(0, 10).join("\n  ")}`,
      );
    // Still answering on both listeners.
    expect(
      (await send(sluice.registry, { api: "registry", method: "GET", route: "/", path: "/subjects" })).status,
    ).toBe(200);
    expect(
      (await send(sluice.connect, { api: "connect", method: "GET", route: "/", path: "/connectors" })).status,
    ).toBe(200);
    if (violations.size > 0) {
      const list = [...violations].map(([key, example], i) => `${i + 1}. ${key}\n    ${example}`).join("\n");
      throw new Error(
        `${violations.size} distinct violations in ${count} requests (seed ${SEED}; SLUICE_FUZZ_SEED=${SEED} SLUICE_FUZZ_RUNS=${RUNS} replays them):\n${list}`,
      );
    }
  }, 150_000);

  /** Equal as toEqual sees it: key order aside (a connector created again lists in another place). */
  function sameJson(a: unknown, b: unknown): boolean {
    const sorted = (_: string, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
        : v;
    return JSON.stringify(a, sorted) === JSON.stringify(b, sorted);
  }

  /** The durable state both APIs show. */
  async function snapshot(): Promise<unknown> {
    const get = async (port: number, path: string) => {
      const a = await send(port, { api: "registry", method: "GET", route: path, path });
      return { status: a.status, body: a.text === "" ? undefined : JSON.parse(a.text) };
    };
    const r = (path: string) => get(sluice.registry, path);
    // (a name with a lone surrogate has no UTF-8 form: sent as U+FFFD, so its reads show what the API makes of that)
    const enc = (name: string) => encodeURIComponent(name.toWellFormed());
    const subjects = (await r("/subjects?deleted=true")).body as string[];
    const registry: Record<string, unknown> = {
      subjects,
      config: await r("/config"),
      mode: await r("/mode"),
      schemas: await r("/schemas?deleted=true"),
    };
    for (const s of subjects) {
      const versions = (await r(`/subjects/${enc(s)}/versions?deleted=true`)).body;
      const each: unknown[] = [];
      for (const v of Array.isArray(versions) ? versions : [])
        each.push(await r(`/subjects/${enc(s)}/versions/${v}?deleted=true`));
      registry[`subject ${s}`] = {
        versions,
        each,
        config: await r(`/config/${enc(s)}`),
        mode: await r(`/mode/${enc(s)}`),
        live: await r(`/subjects/${enc(s)}/versions`),
      };
    }
    const listed = (await get(sluice.connect, "/connectors?expand=status&expand=info")).body as Record<
      string,
      { info: unknown; status: { connector: { state: string }; tasks: { id: number; state: string }[]; type: string } }
    >;
    const connect: Record<string, unknown> = {};
    for (const [name, { info, status }] of Object.entries(listed)) {
      connect[name] = {
        info,
        state: status.connector.state,
        tasks: status.tasks.map((t) => t.id),
        config: await get(sluice.connect, `/connectors/${enc(name)}/config`),
        offsets:
          status.connector.state === "STOPPED"
            ? await get(sluice.connect, `/connectors/${enc(name)}/offsets`)
            : undefined,
      };
    }
    return { registry, connect, summary: `${subjects.length} subjects, ${Object.keys(listed).length} connectors` };
  }

  test("after a restart on the same data dir: the state replayed equals the state before; the connector file is applied again", async () => {
    // Connectors settle first (tasks starting, failing or restarting): the recorded state is a stable one.
    let before = await snapshot();
    before = await waitFor(
      "a stable state",
      async () => {
        const again = await snapshot();
        const same = JSON.stringify(again) === JSON.stringify(before);
        before = again;
        return same && !JSON.stringify(again).match(/"state":"(UNASSIGNED|RESTARTING)"/) ? again : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    console.log(`recorded state: ${(before as { summary: string }).summary}`);
    await stop();
    sluice = await start();
    // Every connector is back as it was; the file's connector has the file's config again (a PUT keeps
    // its target state; one the fuzzer deleted is created running).
    const recorded = before as { registry: unknown; connect: Record<string, { state: string; offsets: unknown }> };
    const previous = recorded.connect[fileConnector.name];
    const state = previous?.state === "PAUSED" || previous?.state === "STOPPED" ? previous.state : "RUNNING";
    const fileInfo = {
      name: fileConnector.name,
      config: fileConnector,
      tasks: state === "STOPPED" ? [] : [{ connector: fileConnector.name, task: 0 }],
      type: "sink",
    };
    const expected = {
      registry: recorded.registry,
      connect: {
        ...recorded.connect,
        [fileConnector.name]: {
          info: fileInfo,
          state,
          tasks: state === "STOPPED" ? [] : [0],
          config: { status: 200, body: fileConnector },
          offsets: state === "STOPPED" ? previous?.offsets : undefined,
        },
      },
    };
    let after: { registry: unknown; connect: unknown } | undefined;
    await waitFor(
      "the restarted binary to show the same state",
      async () => {
        const got = (await snapshot()) as { registry: unknown; connect: unknown };
        after = { registry: got.registry, connect: got.connect };
        return sameJson(after, expected) || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    ).catch(() => undefined);
    expect(after).toEqual(expected);
  }, 120_000);
});
