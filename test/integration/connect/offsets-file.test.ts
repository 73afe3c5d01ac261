// Sluice's standalone offsets file against Kafka Connect's own FileOffsetBackingStore (through
// test/fixtures/java/OffsetsFileProbe.java): each reads what the other wrote, byte for byte the same.
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "bun";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeByteMap, encodeByteMap, type ByteMapEntry } from "#src/connect/runtime/storage/java-byte-map.ts";
import { kafkaClasspath } from "../../fixtures/kafka.ts";

const dir = mkdtempSync(join(tmpdir(), "offsets-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const probe = (mode: "read" | "write", file: string, stdin = "") => {
  const source = join(import.meta.dir, "..", "..", "fixtures", "java", "OffsetsFileProbe.java");
  const run = spawnSync(
    ["java", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", kafkaClasspath(), source, mode, file],
    { stdin: Buffer.from(stdin), stdout: "pipe", stderr: "pipe" },
  );
  if (run.exitCode !== 0) throw new Error(`OffsetsFileProbe ${mode} failed: ${run.stderr.toString()}`);
  return run.stdout.toString();
};
const text = (b: Uint8Array | null) => (b === null ? "NULL" : new TextDecoder().decode(b));
const bytes = (s: string) => new TextEncoder().encode(s);
// Enough entries for Java's HashMap to grow past its first 16 buckets; a null value is a deleted offset.
const entries: ByteMapEntry[] = Array.from({ length: 20 }, (_, i) => [
  bytes(`["source-${i}",{"filename":"/data/ünïcode-${i}.txt"}]`),
  i === 3 ? null : bytes(`{"position":${i * 1000}}`),
]);
const lines = (list: ByteMapEntry[]) => list.map(([k, v]) => `${text(k)}\t${text(v)}`).sort();

test("Sluice reads the file Kafka Connect writes, and writes the same bytes for the same map", () => {
  const file = join(dir, "by-kafka.offsets");
  probe("write", file, lines(entries).join("\n") + "\n");
  const written = new Uint8Array(readFileSync(file));
  const decoded = decodeByteMap(written);
  expect(lines(decoded)).toEqual(lines(entries));
  expect(encodeByteMap(decoded)).toEqual(written);
}, 120_000);

test("Kafka Connect reads the file Sluice writes", () => {
  const file = join(dir, "by-sluice.offsets");
  writeFileSync(file, encodeByteMap(entries));
  expect(probe("read", file).trimEnd().split("\n")).toEqual(lines(entries));
  writeFileSync(file, encodeByteMap([]));
  expect(probe("read", file)).toBe("");
}, 120_000);
