// Data contracts end to end with Python confluent-kafka's own rule executors against dist/sluice, on
// Kafka (records through a real broker) and on the embedded default (bytes handed over in memory):
// metadata and a CEL condition enforced by the serializer with use.latest.with.metadata, and a
// PII-tagged field encrypted on produce and decrypted on consume through Sluice's DEK registry, and a
// contract registered under a schema context.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interopPython } from "../fixtures/python.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { startSluice, type SluiceProcess } from "../fixtures/sluice-process.ts";
import { freePort } from "../fixtures/wait.ts";

const contractsCli = join(import.meta.dir, "python", "contracts_cli.py");

async function pythonContracts(args: string[]): Promise<Record<string, unknown>[]> {
  const proc = Bun.spawn([interopPython(), contractsCli, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`python contracts_cli.py ${args[0]} failed (exit ${code}): ${err.slice(-3000)}`);
  return out
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const step = (lines: Record<string, unknown>[], name: string) => lines.find((l) => l.step === name);

describe.each(["kafka", "embedded"] as const)("data contracts with Python confluent-kafka on %s", (kind) => {
  let dir: string;
  let sluice: SluiceProcess;
  let url: string;
  let bootstrap: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-contracts-py-"));
    url = `http://127.0.0.1:${freePort()}`;
    if (kind === "kafka") {
      bootstrap = (await sharedKafka()).bootstrap;
      const run = `${process.pid}-${Date.now()}`;
      sluice = await startSluice(
        [
          "registry",
          "--bootstrap-servers",
          bootstrap,
          "--listeners",
          url,
          `--kafkastore.topic=_schemas-contracts-${run}`,
          "--kafkastore.topic.replication.factor=1",
          `--schema.registry.group.id=sr-contracts-${run}`,
        ],
        { cwd: dir, readyUrl: url },
      );
    } else {
      bootstrap = "none";
      sluice = await startSluice(
        [
          "dev",
          "--data-dir",
          join(dir, "data"),
          "--registry-listeners",
          url,
          "--connect-listeners",
          `http://127.0.0.1:${freePort()}`,
        ],
        { cwd: dir, readyUrl: url },
      );
    }
  }, 180_000);
  afterAll(async () => {
    await sluice?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test("a CEL condition from the latest version with given metadata accepts one record and rejects another", async () => {
    const topic = `contracts-cel-${kind}-${Date.now()}`;
    const lines = await pythonContracts([
      "cel",
      "--url",
      url,
      "--bootstrap",
      bootstrap,
      "--topic",
      topic,
      "--subject",
      `${topic}-value`,
    ]);
    expect(step(lines, "registered")).toMatchObject({ version: 1 });
    expect(step(lines, "latest_with_metadata")).toMatchObject({ version: 1, rules: ["checkSsnLen"] });
    expect(step(lines, "rejected")).toMatchObject({ rejected: true });
    expect(String(step(lines, "rejected")!.error)).toContain("size(message.ssn) == 9");
    expect(step(lines, "consumed")).toEqual({ step: "consumed", value: { name: "Ann", ssn: "123456789" } });
  }, 120_000);

  test("a PII-tagged field is encrypted on produce and decrypted on consume with keys from Sluice's DEK registry", async () => {
    const topic = `contracts-enc-${kind}-${Date.now()}`;
    const kek = `kek-${kind}-${Date.now()}`;
    const lines = await pythonContracts([
      "encrypt",
      "--url",
      url,
      "--bootstrap",
      bootstrap,
      "--topic",
      topic,
      "--subject",
      `${topic}-value`,
      "--kek",
      kek,
      "--secret",
      "local-secret",
    ]);
    expect(step(lines, "raw")).toMatchObject({ step: "raw", plaintext_visible: false, name_visible: true });
    expect(step(lines, "decrypted")).toEqual({ step: "decrypted", value: { name: "Ann", ssn: "123456789" } });
    // The client created the KEK and a DEK for the subject through the registry's API.
    const kekBody = (await (await fetch(`${url}/dek-registry/v1/keks/${kek}`)).json()) as Record<string, unknown>;
    expect(kekBody).toMatchObject({ name: kek, kmsType: "local-kms", kmsKeyId: "mykey", shared: false });
    const dek = (await (await fetch(`${url}/dek-registry/v1/keks/${kek}/deks/${topic}-value`)).json()) as Record<
      string,
      unknown
    >;
    expect(dek).toMatchObject({ kekName: kek, subject: `${topic}-value`, version: 1, algorithm: "AES256_GCM" });
    expect(typeof dek.encryptedKeyMaterial).toBe("string");
    // Another process with the secret reads it; without the KMS secret the field stays unreadable (the
    // rule's onFailure is ERROR on write and NONE on read: the record comes back, its ssn still ciphertext).
    const raw = String(step(lines, "raw")!.hex);
    const decrypt = (secret: string) =>
      pythonContracts([
        "decrypt",
        "--url",
        url,
        "--bootstrap",
        bootstrap,
        "--topic",
        topic,
        "--subject",
        `${topic}-value`,
        "--raw",
        raw,
        "--secret",
        secret,
      ]);
    expect(await decrypt("local-secret")).toEqual([{ step: "decrypted", value: { name: "Ann", ssn: "123456789" } }]);
    const [withoutSecret] = (await decrypt("not-the-secret")) as { value: { name: string; ssn: string } }[];
    expect(withoutSecret!.value.name).toBe("Ann");
    expect(withoutSecret!.value.ssn).not.toBe("123456789");
  }, 120_000);

  test("a contract under a schema context: get_contexts, get_schema in the subject's context, the latest with metadata", async () => {
    const subject = `contracts-ctx-${Date.now()}-value`;
    const [line] = await pythonContracts([
      "contexts",
      "--url",
      url,
      "--bootstrap",
      bootstrap,
      "--topic",
      "unused",
      "--subject",
      subject,
      "--context",
      "prod",
    ]);
    expect(line).toMatchObject({
      contexts: [".", ".prod"],
      metadata: { owner: "ctx-team" },
      latest: [`:.prod:${subject}`, 1, line!.id],
    });
    expect((line!.schema as { name: string }).name).toBe("Person");
  }, 120_000);
});
