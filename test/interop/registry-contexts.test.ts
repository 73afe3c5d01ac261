// Confluent's Python SchemaRegistryClient (confluent-kafka 2.x) against Sluice's contexts: it lists
// contexts, registers under a qualified subject and fetches the schema by id in that subject's context.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { interopPython } from "../fixtures/python.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../fixtures/registry.ts";

let place: RegistryPlace;
let sr: TestRegistry;

beforeAll(async () => {
  place = await registryPlace("embedded");
  sr = await startTestRegistry(place);
}, 120_000);
afterAll(async () => {
  await sr?.stop();
  if (place) removePlace(place);
});

const script = `
import json, sys
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
client = SchemaRegistryClient({"url": sys.argv[1]})
text = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]})
default_id = client.register_schema("other", Schema(json.dumps({"type": "record", "name": "Other", "fields": []}), "AVRO"))
ctx_id = client.register_schema(":.prod:orders", Schema(text, "AVRO"))
fetched = client.get_schema(ctx_id, subject_name=":.prod:orders")
latest = client.get_latest_version(":.prod:orders")
print(json.dumps({
  "contexts": client.get_contexts(),
  "default_id": default_id,
  "ctx_id": ctx_id,
  "schema": fetched.schema_str,
  "latest": [latest.subject, latest.version, latest.schema_id],
  "subjects": client.get_subjects(),
}))
`;

test("get_contexts, register under a context, get_schema(id, subject_name=':.prod:orders')", async () => {
  const proc = Bun.spawn([interopPython(), "-c", script, sr.url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect(err.slice(-2000)).toBe("");
  expect(code).toBe(0);
  const result = JSON.parse(out);
  expect(result.contexts).toEqual([".", ".prod"]);
  // Both are the first id of their context.
  expect([result.default_id, result.ctx_id]).toEqual([1, 1]);
  expect(JSON.parse(result.schema).name).toBe("Order");
  expect(result.latest).toEqual([":.prod:orders", 1, 1]);
  expect(result.subjects).toEqual([":.prod:orders", "other"]);
}, 120_000);
