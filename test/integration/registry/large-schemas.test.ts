// Large schemas through dist/sluice (issue 11, item 8): they register as before, and while one is
// processed the registry goes on answering cached reads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { avroEnum, avroRecord, largeSchemaOfBody, registrationBody } from "../../fixtures/large-schemas.ts";
import { type SluiceProcess, startSluice } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

let sluice: SluiceProcess;
let dir: string;
let url: string;

const post = (subject: string, body: string) =>
  fetch(`${url}/subjects/${subject}/versions`, {
    method: "POST",
    body,
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sluice-large-"));
  url = `http://127.0.0.1:${freePort()}`;
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
    { cwd: dir, readyUrl: `${url}/subjects`, log: "sluice.log" },
  );
}, 120_000);

afterAll(async () => {
  await sluice.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("large schemas through sluice dev", () => {
  test("a 40,000-symbol enum registers (on the schema thread), is found again, looked up, served as its canonical text and checked for compatibility", async () => {
    const schema = avroEnum(40000);
    const first = await post("big-enum", registrationBody({ schemaType: "AVRO", schema }));
    expect(first.status).toBe(200);
    const again = await post("big-enum", registrationBody({ schemaType: "AVRO", schema }));
    expect(again.body.id).toBe(first.body.id);
    const stored = (await fetch(`${url}/schemas/ids/${first.body.id}`).then((r) => r.json())) as { schema: string };
    expect(stored.schema).toBe(schema);
    const lookedUp = await fetch(`${url}/subjects/big-enum`, {
      method: "POST",
      body: registrationBody({ schemaType: "AVRO", schema }),
    }).then((r) => r.json());
    expect(lookedUp).toEqual({ guid: expect.any(String), subject: "big-enum", version: 1, id: first.body.id, schema });
    // Compatibility against the big version: dropping symbols is refused with Confluent's message.
    const missing = "The new schema is missing enum symbols '[SYMBOL_39999]' at path '/symbols' in the old schema";
    const narrowed = registrationBody({ schemaType: "AVRO", schema: avroEnum(39999) });
    const tested = (await fetch(`${url}/compatibility/subjects/big-enum/versions/latest?verbose=true`, {
      method: "POST",
      body: narrowed,
    }).then((r) => r.json())) as {
      is_compatible: boolean;
      messages: string[];
    };
    expect(tested.is_compatible).toBe(false);
    expect(tested.messages[0]).toContain(missing);
    const refused = await post("big-enum", narrowed);
    expect(refused.status).toBe(409);
    expect(String(refused.body.message)).toContain(missing);
  }, 120_000);

  test("cached GETs are answered while a 4 MiB registration is in flight", async () => {
    const small = await post("small", registrationBody({ schemaType: "AVRO", schema: avroRecord(2) }));
    const read = `${url}/schemas/ids/${small.body.id}`;
    expect((await fetch(read)).status).toBe(200); // now cached
    // The body is streamed so the test knows when the last byte has been handed over: GETs sent
    // after that can only be answered while the server works on the registration.
    const bytes = new TextEncoder().encode(registrationBody(largeSchemaOfBody("avro-record")));
    let offset = 0;
    let handedOver = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes.subarray(offset, offset + 65536));
        offset += 65536;
        if (offset >= bytes.length) {
          controller.close();
          handedOver = true;
        }
      },
    });
    let done = false;
    const registration = fetch(`${url}/subjects/big-record/versions`, {
      method: "POST",
      body,
      headers: { "content-type": "application/vnd.schemaregistry.v1+json", "content-length": String(bytes.length) },
    }).then(async (r) => {
      done = true;
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    });
    await waitFor("the registration body to be sent", () => handedOver || done);
    // Sequential GETs: each answered before the registration is.
    let answered = 0;
    for (let i = 0; i < 3; i++) {
      const r = await fetch(read);
      expect(await r.json()).toEqual({ guid: expect.any(String), schema: avroRecord(2) });
      if (!done) answered++;
    }
    const registered = await registration;
    expect(answered).toBe(3);
    // Under the body limit but over what a stored record may hold, as before.
    expect([registered.status, registered.body.error_code]).toEqual([422, 42209]);
  }, 120_000);
});
