import { expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { documented, openApiDocument, type DocumentOptions } from "#src/platform/openapi.ts";

const Error = t.Object({ error_code: t.Integer(), message: t.String() });
const options: DocumentOptions = {
  title: "t",
  version: "1",
  description: "d",
  jsonTypes: ["application/json", "application/x+json"],
  errorSchema: Error,
  commonResponses: { "4XX": { description: "refused", schema: { $ref: "#/components/schemas/Error" } } },
};

const app = new Elysia()
  .get("/", () => ({}))
  .use(
    new Elysia()
      .get("/items/:item/parts/:part", () => [], {
        query: t.Object({
          deleted: t.Optional(t.String({ description: "with deleted" })),
          key: t.Optional(t.Array(t.String())),
        }),
        ...documented({
          summary: "A part",
          responses: {
            200: { description: "the part", schema: Type.Object({ n: Type.Integer() }) },
            404: { description: "none" },
          },
        }),
      })
      .post("/items", () => 1, {
        body: t.Object({ name: t.String(), size: t.Integer() }),
        ...documented({ responses: { 201: { description: "made" } } }),
      })
      .put(
        "/items/:item",
        () => 1,
        documented({ body: t.Object({ x: t.String() }), responses: { 204: { description: "set" } } }),
      )
      .get("/secret", () => 1, documented({ hide: true })),
  );
// The generated document is read field by field.
const doc = openApiDocument(app.routes, options) as {
  openapi: string;
  // biome-ignore lint/suspicious/noExplicitAny: operations of any shape.
  paths: Record<string, Record<string, Record<string, any>>>;
  // biome-ignore lint/suspicious/noExplicitAny: components of any shape.
  components: any;
};

test("OpenAPI 3.1 with every route the app registered, nested apps included, hidden ones left out", () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(Object.keys(doc.paths).sort()).toEqual(["/", "/items", "/items/{item}", "/items/{item}/parts/{part}"]);
  expect(Object.keys(doc.paths["/items"]!)).toEqual(["post"]);
});

test("path parameters from the template, query parameters from the route's TypeBox query schema", () => {
  const get = doc.paths["/items/{item}/parts/{part}"]!.get!;
  expect(get.parameters).toEqual([
    { name: "item", in: "path", required: true, schema: { type: "string" } },
    { name: "part", in: "path", required: true, schema: { type: "string" } },
    { name: "deleted", in: "query", required: false, description: "with deleted", schema: { type: "string" } },
    {
      name: "key",
      in: "query",
      required: false,
      schema: { type: "array", items: { type: "string" } },
      style: "form",
      explode: true,
    },
  ]);
  expect(get.summary).toBe("A part");
});

test("a validated body and a documented one, under each JSON media type; Elysia's numeric coercion keeps no non-string default", () => {
  const post = doc.paths["/items"]!.post!;
  expect(Object.keys(post.requestBody.content)).toEqual(["application/json", "application/x+json"]);
  const size = post.requestBody.content["application/json"].schema.properties.size;
  expect(JSON.stringify(size)).not.toContain('"default"');
  expect(doc.paths["/items/{item}"]!.put!.requestBody.content["application/json"].schema).toEqual({
    type: "object",
    required: ["x"],
    properties: { x: { type: "string" } },
  });
});

test("responses: the route's own over the common ones; a route that describes none says so", () => {
  const responses = doc.paths["/items/{item}/parts/{part}"]!.get!.responses;
  expect(Object.keys(responses)).toEqual(["200", "404", "4XX"]);
  expect(responses["200"].content["application/x+json"].schema).toEqual({
    type: "object",
    required: ["n"],
    properties: { n: { type: "integer" } },
  });
  expect(responses["404"]).toEqual({ description: "none" });
  expect(doc.paths["/"]!.get!.responses.default).toEqual({ description: "Not described" });
  expect(doc.components.schemas.Error.required).toEqual(["error_code", "message"]);
});

test("a route's validated response schema (Elysia's response hook) describes its 200, or its statuses", () => {
  const validated = new Elysia()
    .get("/one", () => ({ n: 1 }), { response: Type.Object({ n: Type.Integer() }) })
    .get("/many", () => ({ n: 1 }), {
      response: { 200: Type.Object({ n: Type.Integer() }), 404: Type.Object({ m: Type.String() }) },
    });
  const paths = (openApiDocument(validated.routes, options) as typeof doc).paths;
  expect(Object.keys(paths["/one"]!.get!.responses)).toEqual(["200", "4XX"]);
  expect(paths["/one"]!.get!.responses["200"].content["application/json"].schema.required).toEqual(["n"]);
  expect(Object.keys(paths["/many"]!.get!.responses)).toEqual(["200", "404", "4XX"]);
});
