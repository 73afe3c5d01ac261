// Protobuf through the REST API: .proto text, well-known imports without references, references to
// other subjects, compatibility, invalid schemas, format=serialized (embedded broker).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  client,
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

const event = `syntax = "proto3";
package app;

import "google/protobuf/timestamp.proto";

message Event {
  string id = 1;
  google.protobuf.Timestamp at = 2;
}
`;

describe("Protobuf schemas", () => {
  let place: RegistryPlace;
  let sr: TestRegistry;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    place = await registryPlace("embedded");
    sr = await startTestRegistry(place);
    api = client(sr.url);
  }, 60_000);
  afterAll(async () => {
    await sr?.stop();
    removePlace(place);
  });

  test("register, identity under whitespace and comments, schemaType in responses", async () => {
    const first = await api.register("event-value", event, { schemaType: "PROTOBUF" });
    expect(first.status).toBe(200);
    const again = await api.register("event-value", `// a comment\n${event.replace(/\n\n/g, "\n")}`, {
      schemaType: "PROTOBUF",
    });
    expect(again.body).toEqual(first.body);
    const byId = (await api.get(`/schemas/ids/${first.body.id}`)).body;
    expect(byId.schemaType).toBe("PROTOBUF");
    expect(byId.schema).toContain("message Event");
    const serialized = (await api.get(`/schemas/ids/${first.body.id}?format=serialized`)).body.schema;
    expect(serialized).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // The serialized (base64 descriptor) form registers as the same schema once normalized.
    const viaDescriptor = await api.post("/subjects/event-value?normalize=true", {
      schemaType: "PROTOBUF",
      schema: serialized,
    });
    expect(viaDescriptor.body.id).toBe(first.body.id);
  });

  test("compatibility: adding a field is fine, changing a field's kind is not", async () => {
    const added = event.replace(
      "  google.protobuf.Timestamp at = 2;",
      "  google.protobuf.Timestamp at = 2;\n  int32 count = 3;",
    );
    expect((await api.register("event-value", added, { schemaType: "PROTOBUF" })).status).toBe(200);
    const changed = added.replace("string id = 1;", "int64 id = 1;");
    const refused = await api.register("event-value", changed, { schemaType: "PROTOBUF" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("FIELD_SCALAR_KIND_CHANGED");
    const check = await api.post("/compatibility/subjects/event-value/versions?verbose=true", {
      schemaType: "PROTOBUF",
      schema: changed,
    });
    expect(check.body.is_compatible).toBe(false);
    expect(check.body.messages[0]).toStartWith('{errorType:"FIELD_SCALAR_KIND_CHANGED"');
  });

  test("references to another subject's .proto, and invalid schemas", async () => {
    const money = `syntax = "proto3";\npackage fin;\nmessage Money { string currency = 1; int64 units = 2; }\n`;
    await api.register("money.proto", money, { schemaType: "PROTOBUF" });
    const order = `syntax = "proto3";\npackage fin;\nimport "money.proto";\nmessage Order { Money total = 1; }\n`;
    const refs = [{ name: "money.proto", subject: "money.proto", version: 1 }];
    const ok = await api.register("order-value", order, { schemaType: "PROTOBUF", references: refs });
    expect(ok.status).toBe(200);
    expect((await api.get("/subjects/money.proto/versions/1/referencedby")).body).toEqual([ok.body.id]);
    const unresolved = await api.register("order2-value", order, { schemaType: "PROTOBUF" });
    expect(unresolved.status).toBe(422);
    expect(unresolved.body.error_code).toBe(42201);

    const syntax = await api.register("broken-value", 'syntax = "proto3";\nmessage X {\n  string a = ;\n}\n', {
      schemaType: "PROTOBUF",
    });
    expect(syntax.status).toBe(422);
    expect(syntax.body.error_code).toBe(42201);
    expect(syntax.body.message).toMatch(/line 3|3:/);
    expect((await api.get("/subjects")).body).not.toContain("broken-value");
  });
});
