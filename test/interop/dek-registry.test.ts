// Confluent's own Python DekRegistryClient (confluent-kafka 2.x) against Sluice's DEK registry:
// register and read KEKs and DEKs (versions, latest), shared KEKs whose DEKs Sluice makes, and the
// errors the client turns into SchemaRegistryError. Python wraps and unwraps with its own local KMS.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { interopPython } from "../fixtures/python.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../fixtures/registry.ts";

const cli = join(import.meta.dir, "python", "dek_cli.py");
let place: RegistryPlace;
let registry: TestRegistry;

beforeAll(async () => {
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, { "dek.registry.topic": `_dek_registry_keys_py_${Date.now()}` });
});
afterAll(async () => {
  await registry?.stop();
  if (place) removePlace(place);
});

async function scenario(prefix: string): Promise<Record<string, Record<string, unknown>>> {
  const proc = Bun.spawn([interopPython(), cli, "--registry", registry.url, "--prefix", prefix], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`dek_cli.py failed (exit ${code}): ${err.slice(-3000)}`);
  const steps = out
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { step: string });
  return Object.fromEntries(steps.map((s) => [s.step, s]));
}

test("Python's DekRegistryClient registers and reads KEKs and DEKs through Sluice", async () => {
  const steps = await scenario("py");
  expect(steps.register_kek!.kek).toMatchObject({
    name: "py-kek",
    kmsType: "local-kms",
    kmsKeyId: "py-key",
    kmsProps: { secret: "python-secret" },
    doc: "made by python",
    shared: false,
  });
  expect(steps.get_kek!.kek).toEqual(steps.register_kek!.kek);
  expect(steps.register_dek!.dek).toMatchObject({
    kekName: "py-kek",
    subject: "py-value",
    version: 1,
    algorithm: "AES256_GCM",
  });

  const read = steps.get_dek!;
  expect(read.v1).toEqual(steps.register_dek!.dek);
  expect(read.latest).toMatchObject({ version: 2 });
  expect([read.v1_unwraps, read.latest_unwraps]).toEqual([true, true]);

  const shared = steps.shared_dek!;
  expect(shared.dek).toMatchObject({ kekName: "py-shared", subject: "py-value", version: 1, algorithm: "AES128_GCM" });
  expect(shared.unwraps_to_key_material).toBe(true);
  expect(shared.read_key_material).toBe((shared.dek as { keyMaterial: string }).keyMaterial);

  expect(steps.missing_dek!.error).toEqual({ status: 404, code: 40470, message: "Key 'py-nothing' not found" });
  expect(steps.missing_kek!.error).toEqual({ status: 404, code: 40470, message: "Key 'py-nokek' not found" });
  expect(steps.conflicting_kek!.error).toEqual({
    status: 409,
    code: 40971,
    message: "Key 'py-kek' already exists; use a different value",
  });
}, 120_000);
