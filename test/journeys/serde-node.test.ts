// A Node app uses `sluice/serde` as the README shows: `npm run build` writes dist/serde (JavaScript and
// type declarations) and package.json's "exports" lead Node and TypeScript there. Real `node` imports it
// and serializes and deserializes Avro, JSON Schema and Protobuf against a running dist/sluice registry;
// `tsc` type-checks an app against the declarations.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "bun";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../fixtures/binary.ts";
import { freePort } from "../fixtures/wait.ts";
import { install, type Install } from "../fixtures/sluice-process.ts";

let sluice: Install;
let registry: string;
// The app's own directory, with Sluice installed as a package (a link to this checkout, as `npm install <path>` makes).
const app = mkdtempSync(join(tmpdir(), "node-app-"));
beforeAll(async () => {
  sluice = install();
  registry = `http://127.0.0.1:${freePort()}`;
  await sluice.start(["registry", "--listeners", registry, "--data-dir", "registry-data"]);
  mkdirSync(join(app, "node_modules"));
  symlinkSync(root, join(app, "node_modules", "sluice"));
}, 180_000);
afterAll(async () => {
  await sluice.remove();
  rmSync(app, { recursive: true, force: true });
}, 60_000);

const program = `
import { Deserializer, SchemaRegistryClient, Serializer } from "sluice/serde";

const registry = new SchemaRegistryClient({ "schema.registry.url": process.env.REGISTRY });
const roundTrip = async (topic, options, value) => {
  const bytes = await new Serializer(registry, options).serialize(topic, value);
  return { magic: bytes[0], value: await new Deserializer(registry).deserialize(topic, bytes) };
};
const results = [
  await roundTrip("payments", { schemaType: "AVRO", schema: { type: "record", name: "Payment", fields: [{ name: "id", type: "string" }] } }, { id: "p-1" }),
  await roundTrip("orders", { schemaType: "JSON", schema: { type: "object", properties: { n: { type: "integer" } } } }, { n: 7 }),
  await roundTrip("events", { schemaType: "PROTOBUF", schema: 'syntax = "proto3"; package ex; message Event { string name = 1; }', messageName: "ex.Event" }, { name: "e" }),
];
console.log(JSON.stringify({ node: process.version, results }));
`;

test("node imports sluice/serde and round-trips Avro, JSON Schema and Protobuf through the registry", () => {
  writeFileSync(join(app, "app.mjs"), program);
  const run = spawnSync(["node", "app.mjs"], {
    cwd: app,
    env: { PATH: process.env.PATH ?? "", REGISTRY: registry },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(run.stderr.toString()).toBe("");
  const out = JSON.parse(run.stdout.toString()) as { node: string; results: { magic: number; value: unknown }[] };
  expect(Number(/^v(\d+)/.exec(out.node)![1])).toBeGreaterThanOrEqual(20);
  expect(out.results).toEqual([
    { magic: 0, value: { id: "p-1" } },
    { magic: 0, value: { n: 7 } },
    { magic: 0, value: { name: "e" } },
  ]);
  expect(run.exitCode).toBe(0);
}, 60_000);

test("a TypeScript app type-checks against sluice/serde's declarations", () => {
  writeFileSync(
    join(app, "app.ts"),
    `import { Serializer, SchemaRegistryClient, SerializationException } from "sluice/serde";
const registry = new SchemaRegistryClient({ "schema.registry.url": "http://localhost:8081" });
const bytes: Promise<Uint8Array> = new Serializer(registry, { schema: '"string"' }).serialize("t", "v");
export const failed: Error = new SerializationException("x");
// @ts-expect-error: serialize needs a topic (the declarations are real types, not any)
void new Serializer(registry, { schema: '"string"' }).serialize();
void bytes;
`,
  );
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ["app.ts"],
    }),
  );
  const tsc = spawnSync([join(root, "node_modules", ".bin", "tsc"), "-p", app], {
    cwd: app,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
  expect(tsc.exitCode).toBe(0);
}, 60_000);
