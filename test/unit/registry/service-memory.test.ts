// What the registry keeps per schema: caches bounded by their settings, and a registration that finds
// existing schemas through the state's index instead of parsing every stored version.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encoder } from "#src/broker/broker.ts";
import { avroFormat } from "#src/schema/avro/index.ts";
import { RegistryState } from "#src/registry/store/state.ts";
import { startRegistry } from "./embedded-registry.ts";

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function registry(dataDir: string, schemaCacheSize = 1000) {
  const started = await startRegistry({ schemaCacheSize }, dataDir);
  closers.push(started.close);
  return started;
}

const record = (name: string, fields: string[]) =>
  JSON.stringify({ type: "record", name, fields: fields.map((f) => ({ name: f, type: "string", default: "" })) });

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sluice-service-memory-"));
  dirs.push(dir);
  return dir;
}

describe("registry memory", () => {
  test("parsed schemas are bounded by schema.cache.size", async () => {
    const { service } = await registry(tempDir(), 5);
    for (let i = 0; i < 20; i++) {
      await service.register(
        `s${i % 3}`,
        {
          schema: record(
            `R${i % 3}`,
            Array.from({ length: 1 + Math.floor(i / 3) }, (_, f) => `f${f}`),
          ),
        },
        false,
      );
    }
    expect(service.parsedSchemasCached).toBeLessThanOrEqual(5);
    expect(service.state.maxId).toBe(20);
  });

  test("registering a new schema parses neither the stored schemas of other subjects nor older versions", async () => {
    const dir = tempDir();
    const first = await registry(dir);
    for (let i = 0; i < 30; i++)
      await first.service.register(`subject-${i}`, { schema: record(`R${i}`, ["a"]) }, false);
    await first.close();
    closers.pop();

    // A fresh process on the same data: nothing parsed yet.
    const { service } = await registry(dir);
    const parse = spyOn(avroFormat, "parse");
    try {
      expect((await service.register("subject-new", { schema: record("New", ["a"]) }, false)).id).toBe(31);
      expect(parse).toHaveBeenCalledTimes(1); // the request's schema only
      parse.mockClear();
      // The same text under another subject shares the id without parsing the stored ones.
      expect((await service.register("subject-other", { schema: record("R7", ["a"]) }, false)).id).toBe(8);
      expect(parse).toHaveBeenCalledTimes(1);
      parse.mockClear();
      // A new version is checked against the latest only (BACKWARD is not transitive).
      expect((await service.register("subject-new", { schema: record("New", ["a", "b"]) }, false)).id).toBe(32);
      parse.mockClear();
      expect((await service.register("subject-new", { schema: record("New", ["a", "b", "c"]) }, false)).id).toBe(33);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  test("the state finds versions by their stored text, across subjects, and forgets deleted ones", () => {
    const state = new RegistryState();
    const put = (subject: string, version: number, id: number, schema: string | null) =>
      state.apply(
        encoder.encode(JSON.stringify({ keytype: "SCHEMA", subject, version, magic: 1 })),
        schema === null ? null : encoder.encode(JSON.stringify({ subject, version, id, schema, deleted: false })),
      );
    put("b", 1, 1, '"string"');
    put("a", 1, 1, '"string"');
    put("a", 2, 2, '"int"');
    expect(state.withText("AVRO", [], '"string"', {}).map((v) => `${v.subject}/${v.version}`)).toEqual(["a/1", "b/1"]);
    expect(state.withText("JSON", [], '"string"', {})).toEqual([]);
    expect(state.withText("AVRO", [{ name: "x", subject: "a", version: 2 }], '"string"', {})).toEqual([]);
    put("a", 1, 1, null);
    expect(state.withText("AVRO", [], '"string"', {}).map((v) => v.subject)).toEqual(["b"]);
  });
});
