// A file → broker → file pipeline with an SMT chain and a predicate, on both brokers: every line
// arrives transformed, once, in order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import type { BrokerKind } from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";

describe.each(["embedded", "kafka"] as BrokerKind[])("SMT chain on %s", (kind) => {
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  beforeAll(async () => {
    worker = await startTestConnect(kind);
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
  });

  test("hoist, insert, rename, mask, route, filter by predicate", async () => {
    const input = join(worker.dir, "in.txt");
    const output = join(worker.dir, "out.txt");
    const lines = Array.from({ length: 300 }, (_, i) => (i % 10 === 0 ? `skip-${i}` : `keep-${i}`));
    writeFileSync(input, lines.join("\n") + "\n");
    const prefix = `smt-${kind}-${Date.now()}`;
    const source = await api.post("/connectors", {
      name: "smt-src",
      config: {
        "connector.class": "FileStreamSource",
        file: input,
        topic: `${prefix}.public.raw`,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        transforms: "hoist,insert,rename,route",
        "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
        "transforms.hoist.field": "line",
        "transforms.insert.type": "org.vendor.connect.transforms.InsertField$Value",
        "transforms.insert.static.field": "origin",
        "transforms.insert.static.value": "file",
        "transforms.rename.type": "org.vendor.connect.transforms.ReplaceField$Value",
        "transforms.rename.renames": "line:text",
        "transforms.route.type": "org.vendor.connect.transforms.RegexRouter",
        "transforms.route.regex": "([^.]+)\\.([^.]+)\\.([^.]+)",
        "transforms.route.replacement": `${prefix}-$3`,
      },
    });
    expect(source.status).toBe(201);
    const sink = await api.post("/connectors", {
      name: "smt-sink",
      config: {
        "connector.class": "FileStreamSink",
        file: output,
        topics: `${prefix}-raw`,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        transforms: "dropSkips,mask,tag",
        "transforms.dropSkips.type": "io.vendor.connect.transforms.Filter$Value",
        "transforms.dropSkips.filter.condition": "$[?(@.text =~ /^skip-.*/)]",
        "transforms.dropSkips.filter.type": "exclude",
        "transforms.mask.type": "org.vendor.connect.transforms.MaskField$Value",
        "transforms.mask.fields": "origin",
        "transforms.mask.replacement": "***",
        "transforms.mask.predicate": "isRaw",
        // Applied only where the predicate does not match (negate): nowhere here.
        "transforms.tag.type": "InsertField$Value",
        "transforms.tag.static.field": "tag",
        "transforms.tag.static.value": "x",
        "transforms.tag.predicate": "isRaw",
        "transforms.tag.negate": "true",
        predicates: "isRaw",
        "predicates.isRaw.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isRaw.pattern": ".*-raw",
      },
    });
    expect(sink.status).toBe(201);
    const expected = lines.filter((l) => l.startsWith("keep-")).map((l) => `Struct{text=${l},origin=***}`);
    await waitFor(
      "all transformed lines",
      () =>
        (existsSync(output) && readFileSync(output, "utf8").split("\n").filter(Boolean).length >= expected.length) ||
        undefined,
    );
    expect(readFileSync(output, "utf8").split("\n").filter(Boolean)).toEqual(expected);
    expect((await api.get("/connectors/smt-src/topics")).body).toEqual({ "smt-src": { topics: [`${prefix}-raw`] } });
  });

  test("invalid transform settings are refused with every problem listed", async () => {
    const bad = await api.post("/connectors", {
      name: "bad-smt",
      config: {
        "connector.class": "FileStreamSink",
        topics: "t",
        file: join(worker.dir, "x.txt"),
        transforms: "a,b",
        "transforms.a.type": "com.example.Nope",
        "transforms.b.type": "RegexRouter",
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("transforms.a.type");
    expect(bad.body.message).toContain("regex");
  });
});
