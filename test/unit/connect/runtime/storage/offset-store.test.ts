import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeByteMap } from "#src/connect/runtime/storage/java-byte-map.ts";
import { FileOffsetStore } from "#src/connect/runtime/storage/offset-store.ts";

const dir = mkdtempSync(join(tmpdir(), "offset-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const text = (b: Uint8Array | null) => new TextDecoder().decode(b!);

test("an earlier Sluice's JSON offsets file is read, and written back in Kafka Connect's format", async () => {
  const file = join(dir, "sluice-json.offsets");
  writeFileSync(file, JSON.stringify({ '["src",{"filename":"/in.txt"}]': { position: 12 } }));
  const store = await FileOffsetStore.open(file, "offset.storage.file.filename");
  expect(store.get("src", { filename: "/in.txt" })).toEqual({ position: 12 });
  await store.set("src", [{ partition: { filename: "/in.txt" }, offset: { position: 20 } }]);
  expect(decodeByteMap(readFileSync(file)).map(([k, v]) => [text(k), text(v)])).toEqual([
    ['["src",{"filename":"/in.txt"}]', '{"position":20}'],
  ]);
  expect(
    (await FileOffsetStore.open(file, "offset.storage.file.filename")).get("src", { filename: "/in.txt" }),
  ).toEqual({ position: 20 });
});

test("a new offsets file is Kafka Connect's empty map", async () => {
  const file = join(dir, "new.offsets");
  await FileOffsetStore.open(file, "offset.storage.file.filename");
  expect(decodeByteMap(readFileSync(file))).toEqual([]);
});

test("an offsets file that is neither Kafka Connect's nor Sluice's is named, with what to do", async () => {
  const file = join(dir, "garbage.offsets");
  writeFileSync(file, "\u00ff\u0001garbage");
  const opened = FileOffsetStore.open(file, "offset.storage.file.filename");
  expect(opened).rejects.toThrow(`unreadable source offsets file ${file}`);
  expect(opened).rejects.toThrow("restore it, or delete it to start every source connector from the beginning");
});
