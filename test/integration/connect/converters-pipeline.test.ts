// Every converter in a file → broker → file pipeline (source and sink both use it), with the
// registry-backed ones on a real registry: the data arrives unchanged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";
import { waitFor } from "../../fixtures/wait.ts";

const converters: [string, Record<string, string>, boolean][] = [
  ["org.apache.kafka.connect.json.JsonConverter", { "schemas.enable": "true" }, true],
  ["org.apache.kafka.connect.json.JsonConverter", { "schemas.enable": "false" }, false],
  ["org.apache.kafka.connect.storage.StringConverter", {}, false],
  ["io.confluent.connect.avro.AvroConverter", {}, true],
  ["io.confluent.connect.protobuf.ProtobufConverter", {}, true],
  ["io.confluent.connect.json.JsonSchemaConverter", {}, true],
];

describe("converters in a pipeline", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place);
    worker = await startTestConnect("embedded");
    api = connectClient(worker.url);
  });
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await sr?.stop();
    removePlace(place);
  });

  test.each(converters.map(([cls, sub, structured], i) => [i, cls, sub, structured] as const))(
    "%i: %s",
    async (i, cls, sub, structured) => {
      const input = join(worker.dir, `in-${i}.txt`);
      const output = join(worker.dir, `out-${i}.txt`);
      const lines = Array.from({ length: 50 }, (_, n) => `value ${n} of ${i}`);
      writeFileSync(input, lines.join("\n") + "\n");
      const converter: Record<string, string> = {
        "value.converter": cls,
        "value.converter.schema.registry.url": sr.url,
      };
      for (const [k, v] of Object.entries(sub)) converter[`value.converter.${k}`] = v;
      // Registry converters need a struct (a record/message/object schema): hoist the line into one.
      const hoist: Record<string, string> = structured
        ? { transforms: "hoist", "transforms.hoist.type": "HoistField$Value", "transforms.hoist.field": "line" }
        : {};
      const topic = `conv-${i}-${Date.now()}`;
      expect(
        (
          await api.post("/connectors", {
            name: `src-${i}`,
            config: { "connector.class": "FileStreamSource", file: input, topic, ...converter, ...hoist },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await api.post("/connectors", {
            name: `sink-${i}`,
            config: { "connector.class": "FileStreamSink", file: output, topics: topic, ...converter },
          })
        ).status,
      ).toBe(201);
      await waitFor(
        `${lines.length} lines through ${cls}`,
        () =>
          (existsSync(output) && readFileSync(output, "utf8").split("\n").filter(Boolean).length >= lines.length) ||
          undefined,
      );
      const got = readFileSync(output, "utf8").split("\n").filter(Boolean);
      expect(got).toEqual(structured ? lines.map((l) => `Struct{line=${l}}`) : lines);
      if (cls.startsWith("io.confluent"))
        expect((await client(sr.url).get("/subjects")).body).toContain(`${topic}-value`);
    },
  );
});
