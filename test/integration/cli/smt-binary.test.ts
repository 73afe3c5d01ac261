// Every transform and predicate runs through dist/sluice: the same pipelines (a fixture source plugin →
// one transform chain → a dumping sink plugin) run in the in-process worker and in the binary, and the
// binary's output must be the in-process output (whose semantics the unit tests pin down), and differ
// from the untransformed records where the transform changes them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type Subprocess } from "bun";
import { root } from "../../fixtures/binary.ts";
import * as fs from "node:fs";
import { join } from "node:path";
import { connectClient, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { install, type Install } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

interface Case {
  name: string;
  shape?: "row" | "envelope";
  expected: number;
  source?: Record<string, string>;
  sink?: Record<string, string>;
  /** The topic the sink reads (a router renames it). */
  sinkTopic?: (topic: string) => string;
  unchanged?: boolean;
}

const chain = (
  alias: string,
  type: string,
  settings: Record<string, string> = {},
  extra: Record<string, string> = {},
) => ({
  transforms: alias,
  [`transforms.${alias}.type`]: type,
  ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`transforms.${alias}.${k}`, v])),
  ...extra,
});

const cases: Case[] = [
  { name: "identity", expected: 3, unchanged: true },
  {
    name: "insert",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.InsertField$Value", {
      "static.field": "added",
      "static.value": "v",
      "timestamp.field": "at",
    }),
  },
  {
    name: "mask",
    expected: 3,
    source: chain("t", "org.vendor.connect.transforms.MaskField$Value", { fields: "secret", replacement: "***" }),
  },
  {
    name: "replace",
    expected: 3,
    source: chain("t", "org.vendor.connect.transforms.ReplaceField$Value", {
      renames: "name:fullname",
      exclude: "secret",
    }),
  },
  {
    name: "route",
    expected: 3,
    source: chain("t", "org.vendor.connect.transforms.RegexRouter", { regex: "(.*)-route", replacement: "$1-routed" }),
    sinkTopic: (t) => t.replace(/-route$/, "-routed"),
  },
  {
    name: "tsroute",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.TimestampRouter", {
      "topic.format": "${topic}-${timestamp}",
      "timestamp.format": "yyyyMMdd",
    }),
    sinkTopic: (t) => `${t}-20231114`,
  },
  {
    name: "valuetokey",
    expected: 3,
    source: {
      transforms: "vk,ek",
      "transforms.vk.type": "org.apache.kafka.connect.transforms.ValueToKey",
      "transforms.vk.fields": "id,name",
      "transforms.ek.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
      "transforms.ek.field": "name",
    },
  },
  { name: "extract", expected: 3, source: chain("t", "ExtractField$Value", { field: "nested" }) },
  { name: "hoist", expected: 3, source: chain("t", "HoistField$Value", { field: "row" }) },
  {
    name: "cast",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.Cast$Value", { spec: "id:string,ts:float64" }),
  },
  {
    name: "flatten",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.Flatten$Value", { delimiter: "_" }),
  },
  {
    name: "tsconvert",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.TimestampConverter$Value", {
      field: "ts",
      "target.type": "string",
      format: "yyyy-MM-dd HH:mm:ss",
    }),
  },
  {
    name: "metadata",
    expected: 3,
    source: {
      ...chain("t", "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value", {
        "schema.name": "renamed.Row",
        "schema.version": "7",
      }),
      "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    },
    sink: { "value.converter": "org.apache.kafka.connect.storage.StringConverter" },
  },
  {
    name: "insertheader",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.InsertHeader", { header: "added", "value.literal": "yes" }),
  },
  {
    name: "dropheaders",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.DropHeaders", { headers: "origin" }),
  },
  {
    name: "headerfrom",
    expected: 3,
    source: chain("t", "org.apache.kafka.connect.transforms.HeaderFrom$Value", {
      fields: "name",
      headers: "h_name",
      operation: "copy",
    }),
  },
  {
    name: "conditionfilter",
    expected: 2,
    source: chain("t", "io.vendor.connect.transforms.Filter$Value", {
      "filter.condition": "$[?(@.id > 1)]",
      "filter.type": "include",
    }),
  },
  {
    name: "topicpredicate",
    expected: 3,
    source: {
      ...chain("t", "InsertField$Value", { "static.field": "matched", "static.value": "yes", predicate: "p" }),
      predicates: "p",
      "predicates.p.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
      "predicates.p.pattern": ".*-topicpredicate",
    },
  },
  {
    name: "headerpredicate",
    expected: 3,
    source: {
      ...chain("t", "MaskField$Value", { fields: "name", predicate: "p", negate: "true" }),
      predicates: "p",
      "predicates.p.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
      "predicates.p.name": "missing",
    },
  },
  {
    name: "tombstonefilter",
    shape: "envelope",
    expected: 3,
    sink: {
      ...chain("t", "org.apache.kafka.connect.transforms.Filter", { predicate: "tomb" }),
      predicates: "tomb",
      "predicates.tomb.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    },
  },
  {
    name: "unwrap",
    shape: "envelope",
    expected: 4,
    source: chain("t", "io.cdc.transforms.ExtractNewRecordState", {
      "drop.tombstones": "false",
      "delete.handling.mode": "rewrite",
      "add.fields": "op,table",
    }),
  },
];

const connectorConfigs = (work: string, c: Case, prefix: string) => {
  const topic = `${prefix}-${c.name}`;
  return [
    {
      name: `src-${c.name}`,
      config: { "connector.class": "test.FixtureSourceConnector", topic, shape: c.shape ?? "row", ...(c.source ?? {}) },
    },
    {
      name: `sink-${c.name}`,
      config: {
        "connector.class": "test.DumpSinkConnector",
        topics: (c.sinkTopic ?? ((t: string) => t))(topic),
        file: join(work, `${c.name}.jsonl`),
        ...(c.sink ?? {}),
      },
    },
  ];
};

const dumpLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

async function waitForDumps(work: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const c of cases) {
    const file = join(work, `${c.name}.jsonl`);
    out[c.name] = await waitFor(`${c.expected} records through ${c.name}`, () => {
      const lines = dumpLines(file);
      return lines.length >= c.expected ? lines : undefined;
    });
  }
  return out;
}

describe("every transform and predicate through dist/sluice", () => {
  let installed: Install;
  let dir: string;
  let plugins: string;
  let inProcess: TestConnect | undefined;
  let binary: Subprocess | undefined;

  beforeAll(() => {
    installed = install("sluice-smt-bin-");
    dir = installed.dir;
    plugins = join(dir, "plugins");
    fs.mkdirSync(plugins);
    fs.copyFileSync(
      join(root, "test", "fixtures", "plugins", "fixture-plugins.ts"),
      join(plugins, "fixture-plugins.ts"),
    );
  }, 180_000);
  afterAll(async () => {
    await inProcess?.stop();
    binary?.kill("SIGTERM");
    await binary?.exited;
    await installed.remove();
  });

  test("the binary's records equal the in-process worker's for every chain", async () => {
    // In-process worker: the reference.
    const refWork = join(dir, "ref");
    fs.mkdirSync(refWork);
    inProcess = await startTestConnect("embedded", { "plugin.path": plugins }, refWork);
    const api = connectClient(inProcess.url);
    for (const c of cases)
      for (const body of connectorConfigs(refWork, c, "smt"))
        expect((await api.post("/connectors", body)).status).toBe(201);
    const reference = await waitForDumps(refWork);

    // The binary, with Kafka Connect-style files.
    const binWork = join(dir, "bin");
    fs.mkdirSync(binWork);
    const files: string[] = [];
    for (const c of cases) {
      for (const body of connectorConfigs(binWork, c, "smt")) {
        const file = join(binWork, `${body.name}.json`);
        fs.writeFileSync(file, JSON.stringify(body));
        files.push(file);
      }
    }
    const port = freePort();
    fs.writeFileSync(
      join(binWork, "worker.properties"),
      [
        `listeners=http://127.0.0.1:${port}`,
        `data.dir=${join(binWork, "data")}`,
        `offset.storage.file.filename=${join(binWork, "offsets")}`,
        "offset.flush.interval.ms=500",
        `plugin.path=${plugins}`,
      ].join("\n"),
    );
    binary = spawn([installed.bin, "connect-standalone", join(binWork, "worker.properties"), ...files], {
      cwd: binWork,
      env: { PATH: process.env.PATH ?? "", HOME: dir, SLUICE_LOG_LEVEL: "warn" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const fromBinary = await waitForDumps(binWork);

    const normalize = (lines: string[]) =>
      lines.map((l) => l.replaceAll(binWork, "<work>").replaceAll(refWork, "<work>"));
    for (const c of cases) {
      expect({ name: c.name, lines: normalize(fromBinary[c.name]!) }).toEqual({
        name: c.name,
        lines: normalize(reference[c.name]!),
      });
      expect(fromBinary[c.name]!.length).toBe(c.expected);
      // A transform that changes records must show it; the identity pipeline is the baseline.
      if (!c.unchanged && c.shape !== "envelope") {
        const strip = (lines: string[]) => lines.map((l) => JSON.stringify({ ...JSON.parse(l), topic: undefined }));
        expect({
          name: c.name,
          changed:
            JSON.stringify(strip(fromBinary[c.name]!)) !== JSON.stringify(strip(fromBinary.identity!)) ||
            c.name.endsWith("route"),
        }).toEqual({ name: c.name, changed: true });
      }
    }
    const status = (await fetch(`http://127.0.0.1:${port}/connectors?expand=status`).then((r) => r.json())) as Record<
      string,
      { status: { tasks: { state: string }[] } }
    >;
    expect(Object.values(status).every((s) => s.status.tasks.every((t) => t.state === "RUNNING"))).toBe(true);
  }, 180_000);
});
