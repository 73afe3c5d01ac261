// Sluice's connect REST API against Apache Kafka Connect 4.1.1 (standalone, Maven jars): the same
// requests go to both workers, on the same Kafka broker but with their own connector names, topics,
// files and offset files, and the answers must be equal once what has to differ is normalized:
// - names and paths: each side's prefix (connector names, topics) and folder become <p> and <dir>;
// - worker ids (host:port), GET /'s version/commit/cluster id, plugin versions (Kafka's 4.1.1, ours);
// - stack traces: only the simple class name of the first exception is kept;
// - Jackson's source location after the first line of a body-binding error;
// - the order of GET /connectors (a Java HashMap's order in Kafka);
// - config key documentation (prose, worded by each project).
// The records both FileStreamSources write with JsonConverter must be the same bytes.
//
// The reference can deadlock. Kafka 4.1.1's StandaloneHerder resumes a connector from a REST thread
// that takes the MemoryConfigBackingStore's lock (putTargetState) and then, in its update listener,
// the herder's; the transition to STARTED then schedules updateConnectorTasks on the herder's own
// pool thread, which takes the herder's lock and then the store's (putTaskConfigs). A second
// pause/resume while that pool thread runs (e.g. resuming two STOPPED connectors back to back)
// deadlocks both, and the worker never answers again. So on the Kafka side every target state
// change is awaited until its status shows it and the herder has finished the work it scheduled
// (settleTargetState) before the next call; Sluice gets the same calls. A reference call with no
// answer in REFERENCE_DEADLINE_MS fails that test saying the reference hung, with its thread dump
// on stderr, and the next test restarts the reference and replays Sluice's connectors into it.
import { afterAll, beforeAll, beforeEach, describe, expect, test as bunTest } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import type { FetchedRecord } from "#src/broker/broker.ts";
import { connectClient, startTestConnect, type TestConnect } from "../fixtures/connect.ts";
import { startKafkaConnect, type KafkaConnect } from "../fixtures/kafka-connect.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { waitFor } from "../fixtures/wait.ts";

type Api = ReturnType<typeof connectClient>;
interface Side {
  label: "kafka" | "sluice";
  api: Api;
  /** Folder of this side's files (inputs, outputs); <dir> in requests and answers. */
  dir: string;
  /** Prefix of this side's connector names and topics; <p> in requests and answers. */
  prefix: string;
  /** What the worker reports as its version (GET /), shown as <version>. */
  version: string;
}
type Answer = { status: number; body: unknown; location?: string };

/**
 * No call in this file takes the reference more than a few seconds; one with no answer in this time
 * (shorter than its own 90 s REST timeout) means it hung.
 */
const REFERENCE_DEADLINE_MS = 30_000;

/** A call to the reference that got no answer in time. */
class ReferenceHung extends Error {}

/**
 * waitFor for probes of the reference: a probe the reference does not answer ends the wait with
 * ReferenceHung (waitFor would poll on, or end at its own deadline saying only that a probe hung).
 */
async function referenceWait<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      if (err instanceof ReferenceHung) throw err;
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`,
      );
    await Bun.sleep(50); // poll interval, not synchronisation: the condition decides
  }
}

/**
 * The reference's client: connectClient's calls, each failing with ReferenceHung (after `onHang`,
 * which takes the thread dump) when the reference does not answer within REFERENCE_DEADLINE_MS.
 */
function referenceClient(base: string, onHang: (call: string) => Promise<string>): Api {
  const raw = connectClient(base);
  const guard =
    <A extends unknown[]>(method: string, send: (path: string, ...rest: A) => ReturnType<Api["get"]>) =>
    async (path: string, ...rest: A) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), REFERENCE_DEADLINE_MS)));
      try {
        const answer = await Promise.race([send(path, ...rest), hung]);
        if (answer !== "hung") return answer;
      } finally {
        clearTimeout(timer);
      }
      throw new ReferenceHung(await onHang(`${method} ${path}`));
    };
  const get = guard("GET", raw.get);
  return {
    get,
    post: guard("POST", raw.post),
    put: guard("PUT", raw.put),
    patch: guard("PATCH", raw.patch),
    delete: guard("DELETE", raw.delete),
    waitForState: (name: string, state: string, tasks?: number) =>
      referenceWait(`the reference's ${name} ${state}`, async () => {
        const s = (await get(`/connectors/${name}/status`)).body as
          | { connector?: { state: string }; tasks?: { state: string }[] }
          | undefined;
        if (s?.connector?.state !== state) return undefined;
        if (tasks !== undefined && (s.tasks?.length !== tasks || s.tasks.some((t) => t.state !== state)))
          return undefined;
        return s;
      }),
  };
}

/**
 * Waits until a target state change of the reference has taken effect: the status shows it (a
 * resumed connector with its tasks: from STOPPED, the herder's pool thread creates them), and then a
 * call the herder answers under its lock (GET /connectors/{name}) returns, so the pool thread has
 * left the updateConnectorTasks the transition scheduled. Only then may the next pause/resume come.
 */
async function settleTargetState(api: Api, name: string, state: "PAUSED" | "RUNNING" | "STOPPED"): Promise<void> {
  await referenceWait(`the reference's ${name} to be ${state}`, async () => {
    const s = (await api.get(`/connectors/${name}/status`)).body as
      | { connector?: { state: string }; tasks?: { state: string }[] }
      | undefined;
    if (s?.connector?.state !== state) return undefined;
    const tasks = s.tasks ?? [];
    if (state === "STOPPED") return tasks.length === 0 || undefined;
    if (state === "RUNNING" && tasks.length === 0) return undefined;
    return tasks.every((t) => t.state === state) || undefined;
  });
  await api.get(`/connectors/${name}`);
}
const TARGET_STATES = { pause: "PAUSED", resume: "RUNNING", stop: "STOPPED" } as const;

const JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";
const STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";

// Lines that exercise JsonConverter's string escaping and the source's line splitting: an empty line,
// escapes, control characters, multi-byte UTF-8 (offsets count UTF-16 units), \r\n and a lone \r.
const INPUT =
  'plain ascii line\n\nquotes " and backslash \\ and tab \t end\ncontrol \u0001\u001f chars\nold mac\rafter a lone cr\nunicode é ü ß € 漢字\nemoji 🚀 done\nwindows line\r\nlast\n';
const LINES = [
  "plain ascii line",
  "",
  'quotes " and backslash \\ and tab \t end',
  "control \u0001\u001f chars",
  "old mac",
  "after a lone cr",
  "unicode é ü ß € 漢字",
  "emoji 🚀 done",
  "windows line",
  "last",
];
/** Source offset after the first line (ASCII, so Kafka's byte skip on restart lands on it too). */
const AFTER_FIRST_LINE = "plain ascii line\n".length;

/**
 * A caller's mistake Kafka Connect answers 500 (its generic exception mapper) is Sluice's 400 with the
 * same message, or 404 for stopping an unknown connector: Kafka's status is mapped to Sluice's so that
 * everything else still compares.
 */
const CALLER_MISTAKES_KAFKA_ANSWERS_500: [RegExp, number][] = [
  [
    /^(Cannot deserialize value of type|Cannot construct instance of|Unrecognized field|Unexpected|Illegal character|Document nesting depth|Non-string value found in original settings|Cannot invoke "|org\.apache\.kafka\.connect\.runtime\.rest\.errors\.BadRequestException: |Offsets cannot be modified|Offset objects should|The value for the 'position'|Partition objects|Failed to modify offsets for sink connector)/,
    400,
  ],
  [/^No connector `[^`]*` configured$/, 404],
];

function sluiceStatusFor(status: number, body: unknown): number {
  const message = (body as { message?: unknown } | undefined)?.message;
  if (status !== 500 || typeof message !== "string") return status;
  return CALLER_MISTAKES_KAFKA_ANSWERS_500.find(([pattern]) => pattern.test(message))?.[1] ?? status;
}

/** Replaces what legitimately differs between the two workers by placeholders. */
function normalize(side: Side, value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value)
    .split(side.dir)
    .join("<dir>")
    .split(side.prefix)
    .join("<p>")
    .split(side.version)
    .join("<version>");
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "worker_id" && typeof x === "string") out[k] = /^[^:]+:\d+$/.test(x) ? "<host:port>" : x;
      else if (k === "trace" && typeof x === "string") out[k] = traceClass(x);
      else if (k === "message" && typeof x === "string") out[k] = onlyFileStreamPlugins(x.split("\n at [Source:")[0]!);
      else out[k] = walk(x);
    }
    return out;
  };
  return walk(JSON.parse(text));
}

/**
 * Kafka lists the plugins it has in some errors; only the FileStream connectors are on both workers,
 * Sluice also has its built-in database and search connectors. Kafka prints PluginDesc objects and
 * Sluice class names (and a "did you mean"): both become the FileStream class names.
 */
function onlyFileStreamPlugins(message: string): string {
  const marker = "available connectors are: ";
  const at = message.indexOf(marker);
  if (at < 0) return message;
  const plugins = new Set(message.slice(at + marker.length).match(/\borg\.apache\.kafka\.connect\.file\.\w+/g) ?? []);
  return message.slice(0, at + marker.length) + [...plugins].join(", ");
}

/** The simple class name of a trace's first exception (Java prints it fully qualified). */
function traceClass(trace: string): string {
  const cls = (trace.split("\n")[0] ?? "").split(":")[0]!.trim();
  return `<trace ${cls.split(".").pop()}>`;
}

/** Fills a side's prefix and folder into a path or body. */
const fill = (side: Side, text: string) => text.split("<p>").join(side.prefix).split("<dir>").join(side.dir);

async function call(side: Side, method: string, path: string, body?: unknown): Promise<Answer> {
  const b =
    body === undefined ? undefined : typeof body === "string" ? body : JSON.parse(fill(side, JSON.stringify(body)));
  const send: Record<
    string,
    (path: string, body?: unknown) => Promise<{ status: number; body: unknown; headers: Headers }>
  > = {
    GET: side.api.get,
    POST: side.api.post,
    PUT: side.api.put,
    PATCH: side.api.patch,
    DELETE: side.api.delete,
  };
  const res = await send[method]!(fill(side, path), b);
  // The reference: one target state change at a time (see the top of the file).
  const change =
    side.label === "kafka" && method === "PUT"
      ? /^\/connectors\/([^/?]+)\/(pause|resume|stop)$/.exec(fill(side, path))
      : null;
  if (change && res.status < 300)
    await settleTargetState(
      side.api,
      decodeURIComponent(change[1]!),
      TARGET_STATES[change[2] as keyof typeof TARGET_STATES],
    );
  const status = side.label === "kafka" ? sluiceStatusFor(res.status, res.body) : res.status;
  let answer = normalize(side, status === res.status ? res.body : { ...(res.body as object), error_code: status });
  if (method === "GET" && path === "/connectors" && Array.isArray(answer)) answer = [...answer].sort();
  const location = res.headers.get("location");
  return {
    status,
    body: answer,
    ...(location
      ? {
          location: location
            .replace(/^https?:\/\/[^/]+/, "")
            .split(side.prefix)
            .join("<p>"),
        }
      : {}),
  };
}

/** Without the documentation prose, which each project words itself. */
const withoutDocs = (infos: unknown): unknown =>
  Array.isArray(infos)
    ? infos.map(withoutDocs)
    : infos && typeof infos === "object"
      ? Object.fromEntries(
          Object.entries(infos)
            .filter(([k]) => k !== "documentation")
            .map(([k, v]) => [k, withoutDocs(v)]),
        )
      : infos;

const readLines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(0, -1) : []);

describe("connect REST: Sluice answers as Apache Kafka Connect 4.1.1 does", () => {
  let kafka: KafkaConnect;
  let sluice: TestConnect;
  let sides: Side[];
  let broker: KafkaBroker;
  const root = mkdtempSync(join(tmpdir(), "sluice-connect-cmp-"));
  const stamp = Date.now();

  const worker = {
    "offset.flush.interval.ms": "500",
    "key.converter": JSON_CONVERTER,
    "value.converter": JSON_CONVERTER,
  };
  const kafkaDir = join(root, "kafka");
  /** Set when the reference hung: the test it hung in and the call. */
  let hung: string | undefined;
  /** Set when the reference could not be restarted after it hung: every later test fails with it. */
  let lost: string | undefined;
  let restarts = 0;

  /** Records the hang (thread dump to stderr) and says what hung, for the failing test's message. */
  async function onHang(call: string): Promise<string> {
    const first = hung === undefined;
    hung ??= call;
    const message = `Apache Kafka Connect 4.1.1 (the reference) hung: ${call} got no answer in ${REFERENCE_DEADLINE_MS / 1000} s. Not a Sluice failure; the reference is restarted before the next test.`;
    if (!first) return message;
    const dump = await kafka.threadDump();
    console.error(`${message}\nThread dump of the reference (pid ${kafka.proc.pid}):\n${dump}`);
    const deadlock = /^Found one Java-level deadlock:[\s\S]*?\n\n/.exec(dump)?.[0];
    return deadlock
      ? `${message}\n${deadlock}(full thread dump on stderr)`
      : `${message} (no Java-level deadlock in its thread dump, on stderr)`;
  }

  /**
   * After a hang: a new reference on the same folder (its offsets file), with Sluice's connectors
   * created again in their states. The history before (e.g. what a source already read) is what the
   * offsets file kept.
   */
  async function restartReference(): Promise<void> {
    const reason = hung;
    hung = undefined;
    await kafka.stop(); // SIGTERM, SIGKILL after 15 s (a deadlocked JVM does not exit on SIGTERM)
    if (existsSync(join(kafkaDir, "connect.log")))
      renameSync(join(kafkaDir, "connect.log"), join(kafkaDir, `connect-hung-${++restarts}.log`));
    kafka = await startKafkaConnect({ bootstrap: (await sharedKafka()).bootstrap, dir: kafkaDir, worker });
    const k = sides[0]!;
    const s = sides[1]!;
    k.api = referenceClient(kafka.url, onHang);
    const listed = (await s.api.get("/connectors?expand=info&expand=status")).body as Record<
      string,
      { info: { config: Record<string, string> }; status: { connector: { state: string } } }
    >;
    for (const [name, { info, status }] of Object.entries(listed)) {
      const config = JSON.parse(fill(k, JSON.stringify(normalize(s, info.config))));
      const initial =
        ({ PAUSED: "PAUSED", STOPPED: "STOPPED" } as Record<string, string>)[status.connector.state] ?? "RUNNING";
      const created = await k.api.post("/connectors", {
        name: fill(k, name.split(s.prefix).join("<p>")),
        config,
        initial_state: initial,
      });
      if (created.status !== 201)
        throw new Error(
          `replaying ${name} into the restarted reference: ${created.status} ${JSON.stringify(created.body)}`,
        );
    }
    console.error(
      `the reference was restarted after it hung (${reason}); Sluice's ${Object.keys(listed).length} connectors were created on it again`,
    );
  }

  beforeEach(async () => {
    if (lost) throw new Error(lost);
    if (hung === undefined) return;
    const reason = hung;
    try {
      await restartReference();
    } catch (err) {
      lost = `the reference hung (${reason}) and could not be restarted: ${err instanceof Error ? err.message : String(err)}`;
      throw new Error(lost);
    }
  }, 180_000);

  beforeAll(async () => {
    const { bootstrap } = await sharedKafka();
    mkdirSync(kafkaDir);
    [kafka, sluice] = await Promise.all([
      startKafkaConnect({ bootstrap, dir: kafkaDir, worker }),
      startTestConnect("kafka", worker, join(root, "sluice")),
    ]);
    mkdirSync(sluice.dir, { recursive: true });
    const versionOf = async (url: string) => ((await connectClient(url).get("/")).body as { version: string }).version;
    sides = [
      {
        label: "kafka",
        api: referenceClient(kafka.url, onHang),
        dir: kafkaDir,
        prefix: `k${stamp}-`,
        version: await versionOf(kafka.url),
      },
      {
        label: "sluice",
        api: connectClient(sluice.url),
        dir: sluice.dir,
        prefix: `s${stamp}-`,
        version: await versionOf(sluice.url),
      },
    ];
    for (const side of sides) writeFileSync(join(side.dir, "in.txt"), INPUT);
    broker = new KafkaBroker({ bootstrapServers: [bootstrap] });
    await broker.connect();
  }, 180_000);

  afterAll(async () => {
    await broker?.close();
    await Promise.all([kafka?.stop(), sluice?.stop()]);
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  /** Runs `steps` on both sides (in parallel) and expects equal normalized answers. */
  async function same<T>(steps: (side: Side) => Promise<T>): Promise<T> {
    const [k, s] = await Promise.all(sides.map(steps));
    expect(s).toEqual(k!);
    return k!;
  }
  /** A test that, once the reference has been restarted after a hang, says so when it fails. */
  const test = (name: string, body: () => Promise<void>) =>
    bunTest(name, async () => {
      try {
        await body();
      } catch (err) {
        if (restarts > 0 && err instanceof Error && !(err instanceof ReferenceHung)) {
          err.message += `\n(the reference hung earlier and was restarted ${restarts}× with Sluice's connectors replayed into it, so the history this test relies on may be gone on one side)`;
        }
        throw err;
      }
    });
  /**
   * A difference kept on purpose (each is explained where it is used): both normalized answers are
   * pinned, so a change on either side shows up.
   */
  async function differs(
    method: string,
    path: string,
    body: unknown,
    expected: { kafka: Answer; sluice: Answer },
  ): Promise<void> {
    const [k, s] = await Promise.all(sides.map((side) => call(side, method, path, body)));
    expect({ kafka: k, sluice: s }).toEqual(expected);
  }
  const req = (method: string, path: string, body?: unknown) => same((side) => call(side, method, path, body));
  const onBoth = (what: (side: Side) => Promise<unknown>) => Promise.all(sides.map(what));
  const waitState = (name: string, state: string, tasks?: number) =>
    onBoth((side) => side.api.waitForState(side.prefix + name, state, tasks));
  /** waitFor on a side's REST API (on the reference, ending with ReferenceHung if it stops answering). */
  const waitOn = <T>(side: Side, what: string, probe: () => Promise<T | undefined | false>) =>
    side.label === "kafka" ? referenceWait(what, probe) : waitFor(what, probe);
  const records = (side: Side, count: number) =>
    waitFor(`${count} records of ${side.label}`, async () => {
      const got = await broker.fetch(`${side.prefix}lines`, 0, 0, { maxWaitMs: 200, maxBytes: 10 << 20 });
      return got.length >= count ? got : undefined;
    });

  const sourceConfig = {
    "connector.class": "FileStreamSource",
    file: "<dir>/in.txt",
    topic: "<p>lines",
    "value.converter": JSON_CONVERTER,
    "value.converter.schemas.enable": "true",
  };
  const sinkConfig = {
    "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
    file: "<dir>/out-string.txt",
    topics: "<p>lines",
    "value.converter": STRING_CONVERTER,
  };
  const jsonSinkConfig = {
    "connector.class": "FileStreamSinkConnector",
    file: "<dir>/out-json.txt",
    topics: "<p>lines",
    "tasks.max": "1",
    "value.converter": JSON_CONVERTER,
    "value.converter.schemas.enable": "true",
  };

  test("GET / has the same fields; no connectors yet", async () => {
    await same(async (side) => {
      const r = await call(side, "GET", "/");
      return {
        status: r.status,
        keys: Object.keys(r.body as object).sort(),
        types: Object.values(r.body as object).map((v) => typeof v),
        // Both workers use the same Kafka cluster.
        kafkaClusterId: (r.body as { kafka_cluster_id: string }).kafka_cluster_id,
      };
    });
    await req("GET", "/connectors");
    await req("GET", "/connectors?expand=status");
  });

  test("connector plugins: the FileStream entries and their config definitions", async () => {
    await same(async (side) => {
      const r = await call(side, "GET", "/connector-plugins");
      const list = (r.body as { class: string }[]).filter((p) => p.class.startsWith("org.apache.kafka.connect.file."));
      return { status: r.status, list: list.sort((a, b) => a.class.localeCompare(b.class)) };
    });
    for (const path of [
      "FileStreamSourceConnector",
      "FileStreamSinkConnector",
      "org.apache.kafka.connect.file.FileStreamSourceConnector",
      "FileStreamSink",
    ]) {
      await same(async (side) => {
        const r = await call(side, "GET", `/connector-plugins/${path}/config`);
        return { ...r, body: withoutDocs(r.body) };
      });
    }
    await req("GET", "/connector-plugins/NoSuchConnector/config");
  });

  test("create source and sinks (201 + Location), duplicate (409)", async () => {
    await req("POST", "/connectors", { name: "<p>src", config: sourceConfig });
    await req("POST", "/connectors", { name: "<p>sink", config: sinkConfig });
    await req("PUT", "/connectors/<p>sink-json/config", jsonSinkConfig);
    await req("POST", "/connectors", { name: "<p>src", config: sourceConfig });
    await req("GET", "/connectors");
  });

  test("running: info, config, status, tasks, task status, expand", async () => {
    await Promise.all(["src", "sink", "sink-json"].map((c) => waitState(c, "RUNNING", 1)));
    for (const c of ["src", "sink", "sink-json"]) {
      await req("GET", `/connectors/<p>${c}`);
      await req("GET", `/connectors/<p>${c}/config`);
      await req("GET", `/connectors/<p>${c}/status`);
      await req("GET", `/connectors/<p>${c}/tasks`);
      await req("GET", `/connectors/<p>${c}/tasks/0/status`);
    }
    await req("GET", "/connectors?expand=status&expand=info");
    await req("GET", "/connectors?expand=info");
  });

  test("JsonConverter records in the topic are byte-identical; the sinks write the same files", async () => {
    const [k, s] = await Promise.all(sides.map((side) => records(side, LINES.length)));
    const view = (r: FetchedRecord) => ({
      offset: r.offset,
      key: r.key && Buffer.from(r.key).toString("hex"),
      value: r.value && Buffer.from(r.value).toString("utf8"),
      valueHex: r.value && Buffer.from(r.value).toString("hex"),
      headers: r.headers.map((h) => h.key),
    });
    expect(s!.map(view)).toEqual(k!.map(view));
    expect(k!.length).toBe(LINES.length);
    await same(async (side) => {
      await waitFor(
        `${side.label} sink files`,
        () =>
          (readLines(join(side.dir, "out-string.txt")).length >= LINES.length &&
            readLines(join(side.dir, "out-json.txt")).length >= LINES.length) ||
          undefined,
      );
      return {
        string: readFileSync(join(side.dir, "out-string.txt"), "utf8"),
        json: readLines(join(side.dir, "out-json.txt")),
      };
    });
    expect(readLines(join(sides[0]!.dir, "out-json.txt"))).toEqual(LINES);
  });

  test("topics in use", async () => {
    await req("GET", "/connectors/<p>src/topics");
    await req("GET", "/connectors/<p>sink/topics");
  });

  test("PUT config update (200) and PATCH config", async () => {
    await req("PUT", "/connectors/<p>sink-json/config", { ...jsonSinkConfig, "tasks.max": "2" });
    await waitState("sink-json", "RUNNING", 2);
    await req("GET", "/connectors/<p>sink-json/tasks");
    await req("GET", "/connectors/<p>sink-json/status");
    await req("PATCH", "/connectors/<p>sink-json/config", { "tasks.max": "1", "value.converter.schemas.enable": null });
    await waitState("sink-json", "RUNNING", 1);
    await req("GET", "/connectors/<p>sink-json/config");
    await req("GET", "/connectors/<p>sink-json/status");
    // Kafka 4.1.1 takes a different `name` in a PATCH and stores it (the connector's config then names
    // another connector); Sluice refuses it as PUT and POST do.
    await differs(
      "PATCH",
      "/connectors/<p>sink-json/config",
      { name: "other" },
      {
        kafka: {
          status: 200,
          body: {
            name: "<p>sink-json",
            config: {
              "connector.class": "FileStreamSinkConnector",
              file: "<dir>/out-json.txt",
              topics: "<p>lines",
              "tasks.max": "1",
              name: "other",
              "value.converter": JSON_CONVERTER,
            },
            tasks: [{ connector: "<p>sink-json", task: 0 }],
            type: "sink",
          },
        },
        sluice: {
          status: 400,
          body: {
            error_code: 400,
            message: "Connector name configuration (other) doesn't match connector name in the URL (<p>sink-json)",
          },
        },
      },
    );
    // Put both back on the same config.
    await req("PUT", "/connectors/<p>sink-json/config", {
      ...jsonSinkConfig,
      "value.converter.schemas.enable": undefined,
    });
    await waitState("sink-json", "RUNNING", 1);
    await req("PATCH", "/connectors/nope/config", { "tasks.max": "1" });
    await req("PATCH", "/connectors/<p>sink-json/config", { "tasks.max": "0" });
    await req("PUT", "/connectors/<p>sink-json/config", { ...jsonSinkConfig, name: "other" });
  });

  test("pause and resume", async () => {
    await req("PUT", "/connectors/<p>sink/pause");
    await waitState("sink", "PAUSED", 1);
    await req("GET", "/connectors/<p>sink/status");
    await req("GET", "/connectors/<p>sink/tasks/0/status");
    await req("PUT", "/connectors/<p>sink/pause");
    await req("PUT", "/connectors/<p>sink/resume");
    await waitState("sink", "RUNNING", 1);
    await req("GET", "/connectors/<p>sink/status");
    await req("PUT", "/connectors/<p>sink/resume");
  });

  test("offsets: readable while running, changed only when stopped", async () => {
    await req("GET", "/connectors/<p>src/offsets");
    await req("PATCH", "/connectors/<p>src/offsets", {
      offsets: [{ partition: { filename: "<dir>/in.txt" }, offset: { position: 0 } }],
    });
    await req("PATCH", "/connectors/<p>sink/offsets", { offsets: [] });
    await req("DELETE", "/connectors/<p>sink/offsets");
  });

  test("stop: STOPPED with no tasks; offsets of source and sink", async () => {
    await onBoth((side) =>
      waitOn(
        side,
        `${side.label} sink offsets`,
        async () =>
          (await side.api.get(`/connectors/${side.prefix}sink/offsets`)).body?.offsets?.[0]?.offset?.kafka_offset ===
            LINES.length || undefined,
      ),
    );
    await req("PUT", "/connectors/<p>src/stop");
    await req("PUT", "/connectors/<p>sink/stop");
    await Promise.all([waitState("src", "STOPPED", 0), waitState("sink", "STOPPED", 0)]);
    await req("PUT", "/connectors/<p>src/stop");
    for (const c of ["src", "sink"]) {
      await req("GET", `/connectors/<p>${c}/status`);
      await req("GET", `/connectors/<p>${c}`);
      await req("GET", `/connectors/<p>${c}/tasks`);
      await req("GET", `/connectors/<p>${c}/tasks/0/status`);
      await req("GET", `/connectors/<p>${c}/offsets`);
    }
  });

  test("PATCH and DELETE offsets of stopped connectors", async () => {
    const position = (p: number) => ({
      offsets: [{ partition: { filename: "<dir>/in.txt" }, offset: { position: p } }],
    });
    const kafkaOffset = (o: unknown) => ({
      offsets: [{ partition: { kafka_topic: "<p>lines", kafka_partition: 0 }, offset: { kafka_offset: o } }],
    });
    await req("PATCH", "/connectors/<p>src/offsets", position(AFTER_FIRST_LINE));
    await req("GET", "/connectors/<p>src/offsets");
    await req("DELETE", "/connectors/<p>src/offsets");
    await req("GET", "/connectors/<p>src/offsets");
    await req("PATCH", "/connectors/<p>src/offsets", position(AFTER_FIRST_LINE));
    await req("PATCH", "/connectors/<p>sink/offsets", kafkaOffset(3));
    await req("GET", "/connectors/<p>sink/offsets");
    await req("PATCH", "/connectors/<p>sink/offsets", kafkaOffset("7"));
    await req("GET", "/connectors/<p>sink/offsets");
    await req("PATCH", "/connectors/<p>sink/offsets", { offsets: [] });
    await req("PATCH", "/connectors/<p>sink/offsets", {});
    await req("PATCH", "/connectors/<p>sink/offsets", {
      offsets: [{ partition: { kafka_topic: "<p>lines" }, offset: { kafka_offset: 3 } }],
    });
    await req("PATCH", "/connectors/<p>sink/offsets", kafkaOffset(-5));
    await req("DELETE", "/connectors/<p>sink/offsets");
    await req("GET", "/connectors/<p>sink/offsets");
    await req("GET", "/connectors/nope/offsets");
    await req("DELETE", "/connectors/nope/offsets");
  });

  test("resume from STOPPED: the source continues at the altered offset, the sink from the start", async () => {
    await req("PUT", "/connectors/<p>src/resume");
    await req("PUT", "/connectors/<p>sink/resume");
    await Promise.all([waitState("src", "RUNNING", 1), waitState("sink", "RUNNING", 1)]);
    await req("GET", "/connectors/<p>src");
    await req("GET", "/connectors/<p>src/tasks");
    // Lines 2.. again after the first 10 records; the sink then holds its first 10 lines and all 19.
    const total = LINES.length * 2 - 1;
    const [k, s] = await Promise.all(sides.map((side) => records(side, total)));
    expect(s!.map((r) => Buffer.from(r.value!).toString("hex"))).toEqual(
      k!.map((r) => Buffer.from(r.value!).toString("hex")),
    );
    await same(async (side) => {
      await waitFor(
        `${side.label} sink file`,
        () => readLines(join(side.dir, "out-string.txt")).length >= LINES.length + total || undefined,
      );
      return readFileSync(join(side.dir, "out-string.txt"), "utf8");
    });
    // Both workers commit source offsets every 500 ms: wait for the commit of the whole file (UTF-16 units).
    await onBoth((side) =>
      waitOn(
        side,
        `${side.label} src offset at the end of in.txt`,
        async () =>
          (await side.api.get(`/connectors/${side.prefix}src/offsets`)).body?.offsets?.[0]?.offset?.position ===
            INPUT.length || undefined,
      ),
    );
    await req("GET", "/connectors/<p>src/offsets");
  });

  test("restarts", async () => {
    await req("POST", "/connectors/<p>src/restart");
    await waitState("src", "RUNNING", 1);
    await req("POST", "/connectors/<p>src/restart?includeTasks=true");
    await waitState("src", "RUNNING", 1);
    await req("POST", "/connectors/<p>src/restart?includeTasks=true&onlyFailed=true");
    await waitState("src", "RUNNING", 1);
    await req("POST", "/connectors/<p>src/restart?onlyFailed=true");
    await req("POST", "/connectors/<p>src/tasks/0/restart");
    await waitState("src", "RUNNING", 1);
    await req("GET", "/connectors/<p>src/status");
    await req("GET", "/connectors/<p>src/tasks/9/status");
    // (Kafka records a FAILED status for the unknown task it tried to restart: not looked at here.)
    await req("POST", "/connectors/<p>src/tasks/9/restart");
    await req("POST", "/connectors/nope/restart?includeTasks=true");
  });

  test("topics reset", async () => {
    await req("PUT", "/connectors/<p>sink/topics/reset");
    await req("GET", "/connectors/<p>sink/topics");
    await req("PUT", "/connectors/nope/topics/reset");
    await req("GET", "/connectors/nope/topics");
  });

  test("a failing task: FAILED with a trace, restart plan keeps it", async () => {
    await req("POST", "/connectors", {
      name: "<p>bad-sink",
      config: { ...sinkConfig, file: "<dir>/missing-dir/out.txt" },
    });
    await onBoth((side) =>
      waitOn(
        side,
        `${side.label} bad-sink FAILED`,
        async () =>
          (await side.api.get(`/connectors/${side.prefix}bad-sink/status`)).body?.tasks?.[0]?.state === "FAILED" ||
          undefined,
      ),
    );
    await req("GET", "/connectors/<p>bad-sink/status");
    await req("GET", "/connectors/<p>bad-sink/tasks/0/status");
    await req("POST", "/connectors/<p>bad-sink/restart?includeTasks=true&onlyFailed=true");
    await req("DELETE", "/connectors/<p>bad-sink");
  });

  test("unknown connectors and tasks (404; Kafka answers 500 for stop)", async () => {
    for (const [method, path] of [
      ["GET", "/connectors/nope"],
      ["GET", "/connectors/nope/config"],
      ["GET", "/connectors/nope/status"],
      ["GET", "/connectors/nope/tasks"],
      ["GET", "/connectors/nope/tasks/0/status"],
      ["PUT", "/connectors/nope/pause"],
      ["PUT", "/connectors/nope/resume"],
      ["PUT", "/connectors/nope/stop"],
      ["DELETE", "/connectors/nope"],
      ["GET", "/connectors/<p>src/tasks-config"],
    ] as const) {
      await req(method, path);
    }
  });

  test("invalid connector configs", async () => {
    await req("POST", "/connectors", { name: "<p>x1", config: { "tasks.max": "1" } });
    await req("POST", "/connectors", { name: "<p>x2", config: { "connector.class": "com.example.NoSuchConnector" } });
    await req("POST", "/connectors", { name: "<p>x3", config: { ...sinkConfig, "topics.regex": "t.*" } });
    await req("POST", "/connectors", { name: "<p>x4", config: { ...sinkConfig, topics: undefined } });
    await req("POST", "/connectors", { name: "<p>x6", config: { ...sinkConfig, "tasks.max": "0" } });
    await req("POST", "/connectors", { name: "<p>x7", config: { ...sourceConfig, topic: "" } });
    await req("POST", "/connectors", { name: "<p>x8", config: { ...sourceConfig, topic: undefined } });
    await req("POST", "/connectors", { name: "<p>x9", config: { ...sinkConfig, "errors.tolerance": "ALL" } });
    await req("POST", "/connectors", { name: "<p>x10", config: { ...sinkConfig, name: "y" } });
    await req("POST", "/connectors", { name: "<p>x11", config: { ...sinkConfig, file: null } });
    // Kafka answers 500 for the null value but has created the connector all the same; Sluice creates
    // nothing. The Kafka one is deleted so both lists agree again.
    await differs("GET", "/connectors/<p>x11/config", undefined, {
      kafka: {
        status: 200,
        body: {
          "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
          topics: "<p>lines",
          "value.converter": STRING_CONVERTER,
          name: "<p>x11",
          file: null,
        },
      },
      sluice: { status: 404, body: { error_code: 404, message: "Connector <p>x11 not found" } },
    });
    expect((await call(sides[0]!, "DELETE", "/connectors/<p>x11")).status).toBe(204);
    await req("POST", "/connectors", {
      name: "<p>x12",
      config: { ...sinkConfig, "key.converter": "com.example.NoSuchConverter" },
    });
    await req("POST", "/connectors", {
      name: "<p>x13",
      config: { ...sinkConfig, "errors.deadletterqueue.topic.name": "<p>lines" },
    });
    await req("POST", "/connectors", { name: "<p>x\u0001y", config: sinkConfig });
    await req("POST", "/connectors", { name: "<p>x14\u0001", config: { ...sinkConfig, file: "<dir>/x14.txt" } });
    await req("DELETE", "/connectors/<p>x14");
    await req("POST", "/connectors", { config: sinkConfig });
    await req("POST", "/connectors", { name: "", config: sinkConfig });
    await req("GET", "/connectors");
  });

  test("request bodies Jackson cannot bind (400; Kafka answers 500)", async () => {
    await req("POST", "/connectors", { name: "<p>x20", config: sinkConfig, initial_state: "SLEEPING" });
    await req("POST", "/connectors", { name: "<p>x21", config: sinkConfig, extra: true });
    await req("PUT", "/connectors/<p>x22/config", [1, 2]);
    await req("PUT", "/connectors/<p>x23/config", { ...sinkConfig, file: { nested: true } });
    await req("PUT", "/connectors/<p>x24/config", { ...sinkConfig, file: ["a"] });
    // Parse errors: the status only (the message is the JSON parser's own).
    for (const [method, path, text] of [
      ["POST", "/connectors", "{not json"],
      ["PUT", "/connectors/<p>x25/config", "[1,2"],
    ] as const) {
      await same(async (side) => {
        const r = await call(side, method, path, text);
        return { status: r.status, error_code: (r.body as { error_code?: number } | undefined)?.error_code };
      });
    }
    await req("GET", "/connectors");
  });

  test("scalars in configs become strings; names are trimmed", async () => {
    await req("PUT", "/connectors/<p>num/config", {
      ...sinkConfig,
      file: "<dir>/num.txt",
      "tasks.max": 1,
      "errors.log.enable": true,
    });
    await req("POST", "/connectors", { name: "  <p>trimmed  ", config: { ...sinkConfig, file: "<dir>/trimmed.txt" } });
    await req("GET", "/connectors/<p>trimmed/config");
    await req("DELETE", "/connectors/<p>num");
    await req("DELETE", "/connectors/<p>trimmed");
  });

  test("initial_state PAUSED and STOPPED: no tasks until resumed", async () => {
    await req("POST", "/connectors", {
      name: "<p>paused",
      config: { ...sinkConfig, file: "<dir>/paused.txt" },
      initial_state: "PAUSED",
    });
    await req("POST", "/connectors", {
      name: "<p>stopped",
      config: { ...sinkConfig, file: "<dir>/stopped.txt" },
      initial_state: "stopped",
    });
    await Promise.all([waitState("paused", "PAUSED", 0), waitState("stopped", "STOPPED", 0)]);
    await req("GET", "/connectors/<p>paused/status");
    await req("GET", "/connectors/<p>paused");
    await req("GET", "/connectors/<p>stopped/status");
    await req("GET", "/connectors/<p>stopped");
    await req("GET", "/connectors/<p>stopped/offsets");
    await req("PUT", "/connectors/<p>paused/resume");
    await waitState("paused", "RUNNING", 1);
    await req("GET", "/connectors/<p>paused");
    await req("DELETE", "/connectors/<p>paused");
    await req("DELETE", "/connectors/<p>stopped");
  });

  test("config validation: error count and per-key messages", async () => {
    const validate = (plugin: string, config: Record<string, string | null>) =>
      same(async (side) => {
        const r = await call(side, "PUT", `/connector-plugins/${plugin}/config/validate`, config);
        if (r.status !== 200) return r;
        const infos = r.body as {
          name: string;
          error_count: number;
          groups: string[];
          configs: { value: { name: string; value: string | null; errors: string[] } | null }[];
        };
        const errors = Object.fromEntries(
          infos.configs
            .filter((c) => c.value && c.value.errors.length > 0)
            .map((c) => [c.value!.name, { value: c.value!.value, errors: c.value!.errors }]),
        );
        return { status: r.status, name: infos.name, error_count: infos.error_count, groups: infos.groups, errors };
      });
    const sink = "FileStreamSinkConnector";
    const source = "FileStreamSourceConnector";
    await validate(sink, { ...sinkConfig, name: "v", file: "/tmp/x" });
    await validate(sink, { "connector.class": "FileStreamSink", "tasks.max": "-1" });
    await validate(sink, {
      "connector.class": "FileStreamSink",
      topics: "a",
      "topics.regex": "b.*",
      "errors.tolerance": "maybe",
    });
    await validate(sink, {
      "connector.class": "FileStreamSink",
      name: "n",
      topics: "a",
      "errors.deadletterqueue.topic.name": "a",
    });
    await validate(sink, {
      "connector.class": "FileStreamSink",
      name: "n",
      "topics.regex": "a.*",
      "errors.deadletterqueue.topic.name": "ab",
    });
    await validate(sink, {
      "connector.class": "FileStreamSink",
      name: "n",
      topics: "t",
      "errors.retry.timeout": "x",
      "errors.retry.delay.max.ms": "0",
      "errors.deadletterqueue.topic.replication.factor": "x",
      "tasks.max.enforce": "x",
      "config.action.reload": "x",
      "errors.log.enable": "x",
      "tasks.max": " 2 ",
      "key.converter": "com.example.Nope",
      "value.converter": "",
    });
    await validate(source, { "connector.class": "FileStreamSource", topic: "", "batch.size": "x" });
    await validate(source, {
      "connector.class": "FileStreamSource",
      name: "n",
      topic: "t",
      "exactly.once.support": "maybe",
      "transaction.boundary": "x",
      "transaction.boundary.interval.ms": "-5",
      "offsets.storage.topic": "",
    });
    await validate(source, {
      "connector.class": "FileStreamSource",
      name: "n",
      topic: "t",
      "exactly.once.support": "REQUESTED",
      "transaction.boundary": "Interval",
      "topic.creation.groups": "g1",
    });
    await validate(source, { "connector.class": "FileStreamSource", name: "n", topic: "t", file: null });
    await validate(source, { "connector.class": "FileStreamSink" });
    await validate(sink, { "connector.class": "com.example.Nope" });
    await validate("NoSuchConnector", { "connector.class": "com.example.NoSuchConnector" });
    await validate(sink, { "tasks.max": "1" });
    await validate(sink, {
      "connector.class": "FileStreamSink",
      name: "v",
      topics: "t",
      "header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    });
    // Whole answers, definitions and values included, for configs that name no converter (see the
    // known gap below). Documentation aside, and the recommended converters without the Confluent
    // ones Sluice has built in (Kafka's classpath has none).
    const noConfluent = (body: unknown) =>
      JSON.parse(JSON.stringify(body), (k, v) =>
        k === "recommended_values" ? (v as string[]).filter((c) => !c.startsWith("io.confluent.")) : v,
      );
    for (const [plugin, config] of [
      [
        sink,
        {
          "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
          name: "v",
          topics: "t",
          file: "/tmp/x",
        },
      ],
      [sink, { "connector.class": "FileStreamSink", "tasks.max": "0", topics: "a,b", "errors.tolerance": "all" }],
      [source, { "connector.class": "FileStreamSource", name: "v", topic: "t", file: "/tmp/x", "batch.size": "10" }],
    ] as const) {
      await same(async (side) => {
        const r = await call(side, "PUT", `/connector-plugins/${plugin}/config/validate`, config);
        return { ...r, body: noConfluent(withoutDocs(r.body)) };
      });
    }
  });

  test("known difference: a tasks.max that is no int is one error, not Kafka's two", async () => {
    for (const value of ["zero", "99999999999"]) {
      const [k, s] = await Promise.all(
        sides.map(async (side) => {
          const r = await call(side, "PUT", "/connector-plugins/FileStreamSinkConnector/config/validate", {
            "connector.class": "FileStreamSink",
            name: "v",
            topics: "t",
            "tasks.max": value,
          });
          return (r.body as { configs: { value: { name: string; errors: string[] } }[] }).configs.find(
            (c) => c.value.name === "tasks.max",
          )!.value.errors;
        }),
      );
      expect(k).toEqual([
        `Invalid value ${value} for configuration tasks.max: Not a number of type INT`,
        "Invalid value null for configuration tasks.max: Value must be non-null",
      ]);
      expect(s).toEqual([`Invalid value ${value} for configuration tasks.max: Not a number of type INT`]);
    }
  });

  test("known gap: Kafka also validates the converters' own settings", async () => {
    // Kafka 4.1 adds the configs of converters named in the connector config (prefixed, e.g.
    // value.converter.schemas.enable, with groups such as "Schemas"); Sluice validates only the
    // connector's and the framework's settings.
    const [k, s] = await Promise.all(
      sides.map(async (side) => {
        const r = await call(side, "PUT", "/connector-plugins/FileStreamSinkConnector/config/validate", {
          "connector.class": "FileStreamSink",
          name: "v",
          topics: "t",
          "value.converter": JSON_CONVERTER,
        });
        return (r.body as { configs: { value: { name: string } }[] }).configs
          .map((c) => c.value.name)
          .filter((n) => n.startsWith("value.converter."));
      }),
    );
    expect(k).toEqual([
      "value.converter.plugin.version",
      "value.converter.decimal.format",
      "value.converter.converter.type",
      "value.converter.schemas.cache.size",
      "value.converter.replace.null.with.default",
      "value.converter.schemas.enable",
    ]);
    expect(s).toEqual(["value.converter.plugin.version"]);
  });

  test("admin loggers", async () => {
    await same(async (side) => {
      const r = await call(side, "GET", "/admin/loggers/root");
      return { status: r.status, keys: Object.keys(r.body as object).sort() };
    });
    const logger = "org.apache.kafka.connect.runtime.rest";
    await req("PUT", `/admin/loggers/${logger}`, { level: "WARN" });
    await same(async (side) => {
      const r = await call(side, "GET", `/admin/loggers/${logger}`);
      const body = r.body as { level: string; last_modified: unknown };
      return { status: r.status, level: body.level, last_modified: typeof body.last_modified };
    });
    // Kafka 4.1's Loggers.allLevels lists the loggers log4j2's context has created: "root" shows only
    // once some code has asked for the root Logger object, which varies from run to run (1 in ~8 runs
    // it was missing). Sluice always lists it, as Kafka does once it exists; the rest must be equal.
    await same(async (side) => {
      const r = await call(side, "GET", "/admin/loggers");
      const loggers = Object.keys(r.body as object).sort();
      if (side.label === "sluice") expect(loggers).toContain("root");
      return {
        status: r.status,
        loggers: loggers.filter((l) => l !== "root"),
        level: (r.body as Record<string, { level: string }>)[logger]?.level,
      };
    });
    await req("PUT", "/admin/loggers/root", { level: "INFO" });
    await same(async (side) => {
      const r = await call(side, "GET", "/admin/loggers/root");
      const body = r.body as { level: string; last_modified: unknown };
      return { status: r.status, level: body.level, last_modified: typeof body.last_modified };
    });
    await req("PUT", `/admin/loggers/${logger}?scope=cluster`, { level: "INFO" });
    await req("PUT", "/admin/loggers/root", { level: "NOPE" });
    await req("PUT", "/admin/loggers/root", {});
    await req("GET", "/admin/loggers/no.such.logger");
  });

  test("delete connectors (204), then 404", async () => {
    for (const c of ["src", "sink", "sink-json"]) {
      await req("DELETE", `/connectors/<p>${c}`);
      await req("GET", `/connectors/<p>${c}`);
      await req("DELETE", `/connectors/<p>${c}`);
    }
    await req("GET", "/connectors");
  });
});
