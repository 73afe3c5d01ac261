// The registry's rules (RegistryService) on its _schemas log over an embedded broker, without HTTP:
// registration and ids, compatibility refusals, soft and hard deletes, config, modes (READONLY,
// IMPORT) and normalize=true, with Confluent's error codes.
import { afterEach, describe, expect, test } from "bun:test";
import { RegistryError } from "#src/registry/errors.ts";
import type { ScopedConfig } from "#src/registry/config-and-mode.ts";
import type { SchemaRequest } from "#src/registry/registration.ts";
import type { RegistryService } from "#src/registry/service.ts";
import { startRegistry } from "./embedded-registry.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function registry(): Promise<RegistryService> {
  const { service, close } = await startRegistry();
  closers.push(close);
  return service;
}

/** An Avro record schema; a field given as [name, type] has no default, a bare name is a string with one. */
const avro = (name: string, ...fields: (string | [string, string])[]): SchemaRequest => ({
  schema: JSON.stringify({
    type: "record",
    name,
    fields: fields.map((f) =>
      typeof f === "string" ? { name: f, type: "string", default: "" } : { name: f[0], type: f[1] },
    ),
  }),
});

/** The error code and message a rule refuses with. */
async function refusal(action: () => unknown): Promise<[number, string]> {
  try {
    await action();
  } catch (err) {
    if (err instanceof RegistryError) return [err.errorCode, err.message];
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("register", () => {
  test("is idempotent: the same schema, however laid out, keeps its id and version", async () => {
    const service = await registry();
    const request = avro("R", "a");
    expect((await service.register("s", request, false)).id).toBe(1);
    const spaced = { schema: JSON.stringify(JSON.parse(request.schema!), null, 2) };
    expect((await service.register("s", spaced, false)).id).toBe(1);
    expect(service.listVersions("s", {})).toEqual([1]);
    expect((await service.lookup("s", spaced, false, false)).version).toBe(1);
    // Stored in canonical form, whatever was sent.
    expect(service.getVersion("s", 1).schema).toBe(
      '{"type":"record","name":"R","fields":[{"name":"a","type":"string","default":""}]}',
    );
  });

  test("a schema already registered under another subject gets the same id there; a new schema the next id", async () => {
    const service = await registry();
    expect((await service.register("orders-value", avro("Order", "id"), false)).id).toBe(1);
    expect((await service.register("archive-value", avro("Order", "id"), false)).id).toBe(1);
    expect(service.versionsOfId(1, false)).toEqual([
      { subject: "archive-value", version: 1 },
      { subject: "orders-value", version: 1 },
    ]);
    expect((await service.register("orders-value", avro("Order", "id", "note"), false)).id).toBe(2);
    expect(service.getVersion("orders-value", "latest")).toMatchObject({ version: 2, id: 2 });
  });

  test("an incompatible schema is refused (409) with the checker's details; NONE at the subject lets it in", async () => {
    const service = await registry();
    await service.register("s", avro("R", ["a", "int"]), false);
    const [code, message] = await refusal(() => service.register("s", avro("R", ["a", "int"], ["b", "int"]), false));
    expect(code).toBe(409);
    expect(message).toStartWith(
      'Schema being registered is incompatible with an earlier schema for subject "s", details: [',
    );
    expect(message).toContain("READER_FIELD_MISSING_DEFAULT_VALUE");
    await service.setConfig("s", { compatibility: "NONE" });
    expect((await service.register("s", avro("R", ["a", "int"], ["b", "int"]), false)).id).toBe(2);
  });

  test("BACKWARD compares with the latest version only, BACKWARD_TRANSITIVE with every live one", async () => {
    const service = await registry();
    await service.setConfig("s", { compatibility: "NONE" });
    await service.register("s", avro("R", ["a", "int"]), false);
    await service.register("s", avro("R", ["a", "string"]), false);
    await service.setConfig("s", { compatibility: "BACKWARD" });
    // Readable against v2 ("a" a string), not against v1 ("a" an int).
    expect((await service.register("s", avro("R", ["a", "string"], "x"), false)).id).toBe(3);
    await service.setConfig("s", { compatibility: "BACKWARD_TRANSITIVE" });
    expect((await refusal(() => service.register("s", avro("R", ["a", "string"], "x", "y"), false)))[0]).toBe(409);
    // A check against one named version is the non-transitive one.
    expect(await service.testCompatibility("s", 2, avro("R", ["a", "string"], "x", "y"), false)).toEqual([]);
    expect(await service.testCompatibility("s", undefined, avro("R", ["a", "string"], "x", "y"), false)).not.toEqual(
      [],
    );
  });

  test("what is not a schema or not a subject is refused with 42201 and 42208", async () => {
    const service = await registry();
    expect(await refusal(() => service.register("s", { schema: "{" }, false))).toEqual([
      42201,
      expect.stringMatching(/^Invalid schema of type AVRO, details: ./),
    ]);
    expect(await refusal(() => service.register("s", { schema: " " }, false))).toEqual([42201, "Empty schema"]);
    expect(await refusal(() => service.register("s", { schema: '"int"', schemaType: "XML" }, false))).toEqual([
      42201,
      "Invalid schema type XML",
    ]);
    expect(await refusal(() => service.register("a\u0001b", { schema: '"int"' }, false))).toEqual([
      42208,
      "The specified subject 'a\u0001b' is not a valid.",
    ]);
    expect(await refusal(() => service.register("__GLOBAL", { schema: '"int"' }, false))).toEqual([
      42208,
      "The specified subject '__GLOBAL' is not a valid.",
    ]);
    // A verbose compatibility test answers with the problem instead.
    expect(await service.testCompatibility("s", undefined, { schema: "{" }, true)).toEqual([
      expect.stringMatching(/^Invalid schema of type AVRO, details: ./),
    ]);
  });

  test("with normalize=true, equivalent spellings are one schema, stored normalized", async () => {
    const service = await registry();
    const a = {
      schema: JSON.stringify({ type: "record", name: "a.R", fields: [{ name: "x", type: "int", p2: 1, p1: 2 }], p: 1 }),
    };
    const b = {
      schema: JSON.stringify({
        p: 1,
        namespace: "a",
        name: "R",
        type: "record",
        fields: [{ p1: 2, p2: 1, type: "int", name: "x" }],
      }),
    };
    expect((await service.register("s", a, true)).id).toBe(1);
    expect((await service.register("s", b, true)).id).toBe(1);
    expect(service.listVersions("s", {})).toEqual([1]);
    expect(service.getVersion("s", 1).schema).toBe(
      '{"type":"record","name":"R","namespace":"a","fields":[{"name":"x","type":"int","p1":2,"p2":1}],"p":1}',
    );
    expect((await service.lookup("s", a, true, false)).id).toBe(1);
    // Without normalize a spelling is compared as it is canonically written.
    expect(await refusal(() => service.lookup("s", a, false, false))).toEqual([40403, "Schema not found"]);
    expect((await service.register("s", a, false)).id).toBe(2);
  });
});

describe("deletes", () => {
  test("a soft-deleted version is hidden but keeps its id; it must be soft-deleted before a hard delete, and only once", async () => {
    const service = await registry();
    await service.register("s", avro("R", "a"), false);
    await service.register("s", avro("R", "a", "b"), false);
    expect(await refusal(() => service.deleteVersion("s", 1, true))).toEqual([
      40407,
      "Subject 's' Version 1 was not deleted first before being permanently deleted",
    ]);
    expect(await service.deleteVersion("s", 1, false)).toBe(1);
    expect(service.listVersions("s", {})).toEqual([2]);
    expect(service.listVersions("s", { deleted: true })).toEqual([1, 2]);
    expect(service.listVersions("s", { deletedOnly: true })).toEqual([1]);
    expect(await refusal(() => service.getVersion("s", 1))).toEqual([40402, "Version 1 not found."]);
    expect(service.getVersion("s", 1, true).deleted).toBe(true);
    expect(service.schemaById(1).schema).toContain('"name":"a"');
    expect(service.versionsOfId(1, false)).toEqual([]);
    expect(await refusal(() => service.deleteVersion("s", 1, false))).toEqual([
      40406,
      "Subject 's' Version 1 was soft deleted.Set permanent=true to delete permanently",
    ]);
    expect(await service.deleteVersion("s", 1, true)).toBe(1);
    expect(service.listVersions("s", { deleted: true })).toEqual([2]);
    expect(await refusal(() => service.deleteVersion("s", 1, false))).toEqual([40402, "Version 1 not found."]);
  });

  test("registering a soft-deleted schema again gives it its id back, as a new version that supersedes the deleted one", async () => {
    const service = await registry();
    await service.register("s", avro("R", "a"), false);
    await service.deleteVersion("s", "latest", false);
    expect(await refusal(() => service.deleteVersion("s", "latest", false))).toEqual([40401, "Subject 's' not found."]);
    expect((await service.register("s", avro("R", "a"), false)).id).toBe(1);
    expect(service.listVersions("s", { deleted: true })).toEqual([2]);
  });

  test("a subject is soft-deleted (its config and mode with it), then may be hard-deleted", async () => {
    const service = await registry();
    await service.register("s", avro("R", "a"), false);
    await service.register("s", avro("R", "a", "b"), false);
    await service.register("other", avro("O", "a"), false);
    await service.setConfig("s", { compatibility: "FULL" });
    await service.setMode("s", "READWRITE", false);
    expect(await refusal(() => service.deleteSubject("s", true))).toEqual([
      40405,
      "Subject 's' was not deleted first before being permanently deleted",
    ]);
    expect(await service.deleteSubject("s", false)).toEqual([1, 2]);
    expect(service.listSubjects({})).toEqual(["other"]);
    expect(service.listSubjects({ deleted: true })).toEqual(["other", "s"]);
    expect(service.listSubjects({ deletedOnly: true })).toEqual(["s"]);
    expect(await refusal(() => service.getConfig("s", false))).toEqual([
      40408,
      "Subject 's' does not have subject-level compatibility configured",
    ]);
    expect(await refusal(() => service.getMode("s", false))).toEqual([
      40409,
      "Subject 's' does not have subject-level mode configured",
    ]);
    expect(await refusal(() => service.deleteSubject("s", false))).toEqual([
      40404,
      "Subject 's' was soft deleted.Set permanent=true to delete permanently",
    ]);
    expect(await service.deleteSubject("s", true)).toEqual([1, 2]);
    expect(service.listSubjects({ deleted: true })).toEqual(["other"]);
    expect(await refusal(() => service.deleteSubject("s", true))).toEqual([40401, "Subject 's' not found."]);
  });

  test("a version another schema references cannot be deleted, nor its subject", async () => {
    const service = await registry();
    await service.register("address", avro("Address", "street"), false);
    const person = {
      schema: JSON.stringify({ type: "record", name: "Person", fields: [{ name: "home", type: "Address" }] }),
      references: [{ name: "Address", subject: "address", version: 1 }],
    };
    expect((await service.register("person", person, false)).id).toBe(2);
    expect(service.referencedBy("address", 1)).toEqual([2]);
    const referenced: [number, string] = [
      42206,
      "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=address,version=1}.",
    ];
    expect(await refusal(() => service.deleteVersion("address", 1, false))).toEqual(referenced);
    expect(await refusal(() => service.deleteSubject("address", false))).toEqual(referenced);
    await service.deleteSubject("person", false);
    expect(await service.deleteVersion("address", 1, false)).toBe(1);
  });
});

describe("config", () => {
  // The level a config body shows: its own, else the one it falls back to.
  const level = ({ config, fallbackLevel }: ScopedConfig) => config.compatibilityLevel ?? fallbackLevel;

  test("a subject's level, else the global one; deleting returns the level it had", async () => {
    const service = await registry();
    expect(level(service.getConfig(null, false))).toBe("BACKWARD");
    expect(await refusal(() => service.getConfig("s", false))).toEqual([
      40408,
      "Subject 's' does not have subject-level compatibility configured",
    ]);
    expect(level(service.getConfig("s", true))).toBe("BACKWARD");
    expect((await service.setConfig("s", { compatibility: "full_transitive" })).compatibilityLevel).toBe(
      "FULL_TRANSITIVE",
    );
    expect((await service.setConfig(null, { compatibility: "NONE" })).compatibilityLevel).toBe("NONE");
    expect(level(service.getConfig("s", false))).toBe("FULL_TRANSITIVE");
    expect(level(service.getConfig("t", true))).toBe("NONE");
    expect(await refusal(() => service.setConfig("s", { compatibility: "SIDEWAYS" }))).toEqual([
      42203,
      expect.stringMatching(/^Invalid compatibility level\. Valid values are none, backward/),
    ]);
    expect(level(await service.deleteConfig("s"))).toBe("FULL_TRANSITIVE");
    expect(level(service.getConfig("s", true))).toBe("NONE");
    expect(level(await service.deleteConfig(null))).toBe("NONE");
    expect(level(service.getConfig(null, false))).toBe("BACKWARD");
    expect(await refusal(() => service.deleteConfig("s"))).toEqual([40401, "Subject 's' not found."]);
  });
});

describe("modes", () => {
  test("READONLY refuses writes to its subject; the global READONLY_OVERRIDE wins over a subject's own mode", async () => {
    const service = await registry();
    await service.register("s", avro("R", "a"), false);
    await service.setMode("s", "readonly", false);
    expect(service.getMode("s", false)).toBe("READONLY");
    const readOnly: [number, string] = [42205, "Subject s is in read-only mode"];
    expect(await refusal(() => service.register("s", avro("R", "a", "b"), false))).toEqual(readOnly);
    expect(await refusal(() => service.deleteVersion("s", 1, false))).toEqual(readOnly);
    expect(await refusal(() => service.deleteSubject("s", false))).toEqual(readOnly);
    expect(await refusal(() => service.setConfig("s", { compatibility: "NONE" }))).toEqual(readOnly);
    // Reads still answer, and other subjects are writable.
    expect(service.getVersion("s", 1).id).toBe(1);
    expect((await service.register("t", avro("T", "a"), false)).id).toBe(2);

    await service.setMode("t", "READWRITE", false);
    await service.setMode(null, "READONLY_OVERRIDE", false);
    expect(await refusal(() => service.register("t", avro("T", "a", "b"), false))).toEqual([
      42205,
      "Subject t is in read-only mode",
    ]);
    expect(await service.deleteMode("s")).toBe("READONLY");
    expect(await refusal(() => service.deleteMode("s"))).toEqual([40401, "Subject 's' not found."]);
  });

  test("IMPORT: only when no live subjects (unless forced); registrations must bring their id and keep it", async () => {
    const service = await registry();
    await service.register("s", avro("R", "a"), false);
    expect(await refusal(() => service.setMode(null, "IMPORT", false))).toEqual([
      42205,
      "Cannot import since found existing subjects",
    ]);
    expect(await refusal(() => service.register("s", { ...avro("R", "a", "b"), id: 7 }, false))).toEqual([
      42205,
      "Subject s is not in import mode",
    ]);
    expect(await service.setMode(null, "IMPORT", true)).toBe("IMPORT");

    expect(await refusal(() => service.register("t", avro("T", "a"), false))).toEqual([
      42205,
      "Subject t is not in read-write mode",
    ]);
    expect((await service.register("t", { ...avro("T", "a"), id: 100, version: 5 }, false)).id).toBe(100);
    expect(service.getVersion("t", 5).id).toBe(100);
    // An id is one schema: another schema may not take it, and a schema keeps the id it has in its subject.
    expect(await refusal(() => service.register("u", { ...avro("U", "a"), id: 100 }, false))).toEqual([
      42205,
      "Overwrite new schema with id 100 is not permitted.",
    ]);
    expect(await refusal(() => service.register("t", { ...avro("T", "a"), id: 101 }, false))).toEqual([
      42207,
      "The ID of an imported schema does not match the existing ID",
    ]);

    await service.setMode(null, "READWRITE", false);
    // New ids continue after the highest imported one.
    expect((await service.register("v", avro("V", "a"), false)).id).toBe(101);
  });

  test("an unknown mode is 42204; with mode.mutability=false modes cannot change", async () => {
    const service = await registry();
    expect(await refusal(() => service.setMode(null, "READMOSTLY", false))).toEqual([
      42204,
      "Invalid mode. Valid values are READWRITE, READONLY, IMPORT.",
    ]);
    const { service: fixed, close } = await startRegistry({ modeMutability: false });
    closers.push(close);
    expect(await refusal(() => fixed.setMode(null, "READONLY", false))).toEqual([
      42205,
      "Mode changes are not allowed",
    ]);
    expect(fixed.getMode(null, false)).toBe("READWRITE");
    // Deletes are mode changes too (42205), after the 40401 of a subject without a mode.
    expect(await refusal(() => fixed.deleteMode(null))).toEqual([42205, "Mode changes are not allowed"]);
    expect(await refusal(() => fixed.deleteMode("s"))).toEqual([40401, "Subject 's' not found."]);
  });

  test("deleting the global mode answers the mode it had (READWRITE when none); recursive reaches subjects", async () => {
    const service = await registry();
    // No global mode of its own: Confluent answers the default, never 40401.
    expect(await service.deleteMode(null)).toBe("READWRITE");
    await service.setMode(null, "READONLY", false);
    await service.setMode("a", "IMPORT", false);
    await service.setMode(":.prod:", "READONLY", false);
    await service.setMode(":.prod:b", "IMPORT", false);
    await service.setMode(":.dev:c", "READONLY", false);
    expect(await service.deleteMode(null)).toBe("READONLY");
    expect(service.getMode(null, false)).toBe("READWRITE");
    // Not recursive: the subjects keep theirs.
    expect(service.getMode("a", false)).toBe("IMPORT");

    // A context: its own mode and, recursive, those of its subjects, not another context's.
    expect(await service.deleteMode(":.prod:", true)).toBe("READONLY");
    expect(await refusal(() => service.getMode(":.prod:b", false))).toEqual([40409, expect.any(String)]);
    expect(service.getMode(":.dev:c", false)).toBe("READONLY");
    // Recursive with no mode of the scope's own answers none instead of 40401.
    expect(await service.deleteMode(":.prod:", true)).toBeNull();
    expect(await refusal(() => service.deleteMode(":.prod:"))).toEqual([40401, "Subject ':.prod:' not found."]);

    // The global scope, recursive: every subject's mode, in every context.
    expect(await service.deleteMode(null, true)).toBe("READWRITE");
    expect(await refusal(() => service.getMode("a", false))).toEqual([40409, expect.any(String)]);
    expect(await refusal(() => service.getMode(":.dev:c", false))).toEqual([40409, expect.any(String)]);
  });
});
