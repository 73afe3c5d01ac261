// An OpenAPI 3.1 document built from the routes an Elysia app registered (`app.routes`): paths and
// methods from the router, path parameters from the route templates, query parameters and request
// bodies from the TypeBox schemas the routes validate with, responses from each route's `detail`.
// TypeBox schemas are JSON Schema, which OpenAPI 3.1 takes as they are. Response schemas are
// documentation only: Elysia validates a route's `response` hook on every reply, `detail` never.
import type { TSchema } from "@sinclair/typebox";

/** What Elysia keeps of a route (`app.routes`). */
export interface DocumentedRoute {
  method: string;
  path: string;
  hooks?: { query?: unknown; body?: unknown; response?: unknown; detail?: RouteDetail };
}

/** A response as a route documents it: its description, and its body's schema when it has one. */
export interface ResponseDoc {
  description: string;
  schema?: TSchema | Record<string, unknown>;
  /** The body's media types; the API's JSON types when absent. */
  contentTypes?: readonly string[];
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

/** What a route puts in Elysia's `detail` hook for this document. */
export interface RouteDetail {
  summary?: string;
  description?: string;
  tags?: string[];
  /** A request body the handler reads itself (with the original system's errors) rather than Elysia validating it. */
  body?: TSchema | Record<string, unknown>;
  /** Keyed by status code ("200") or range ("4XX"). */
  responses?: Record<string, ResponseDoc>;
  deprecated?: boolean;
  /** Left out of the document (Elysia's own convention). */
  hide?: boolean;
}

export interface DocumentOptions {
  title: string;
  version: string;
  description: string;
  /** The media types of JSON bodies, replies and requests (the first is the default). */
  jsonTypes: readonly string[];
  /** The error body every failure answers with, as components/schemas/Error. */
  errorSchema: TSchema;
  /** Responses every operation may give (e.g. {"4XX": …, "5XX": …}); a route's own win. */
  commonResponses: Record<string, ResponseDoc>;
}

/** Elysia's `detail` for a route documented here (typed loosely: Elysia types it as OpenAPI 3.0's OperationObject). */
export const documented = (detail: RouteDetail) => ({ detail: detail as never });

/**
 * A plain-JSON copy of a TypeBox schema (drops TypeBox's symbol keys). Elysia's numeric types accept
 * a number or its text ({"anyOf": [{"type": "string", "format": "integer", "default": 0}, …]}); the
 * string branch's numeric default is not a string, which OpenAPI validators refuse: it is left out.
 */
const plain = (schema: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema), (_, value: unknown) => {
    if (
      value &&
      typeof value === "object" &&
      (value as { type?: unknown }).type === "string" &&
      typeof (value as { default?: unknown }).default === "number"
    ) {
      const { default: _dropped, ...rest } = value as Record<string, unknown>;
      return rest;
    }
    return value;
  }) as Record<string, unknown>;

/** The OpenAPI 3.1 document of `routes`. */
export function openApiDocument(routes: readonly DocumentedRoute[], options: DocumentOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const detail = route.hooks?.detail;
    if (detail?.hide || route.method === "ALL") continue;
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      ...(detail?.summary ? { summary: detail.summary } : {}),
      ...(detail?.description ? { description: detail.description } : {}),
      ...(detail?.tags ? { tags: detail.tags } : {}),
      ...(detail?.deprecated ? { deprecated: true } : {}),
    };
    const parameters = [...pathParameters(route.path), ...queryParameters(route.hooks?.query)];
    if (parameters.length > 0) operation.parameters = parameters;
    const body = route.hooks?.body ?? detail?.body;
    if (body) operation.requestBody = { required: true, content: mediaTypes(options.jsonTypes, plain(body)) };
    const described = { ...validatedResponses(route.hooks?.response), ...detail?.responses };
    const responses = {
      ...options.commonResponses,
      ...(Object.keys(described).length > 0 ? described : { default: { description: "Not described" } }),
    };
    operation.responses = Object.fromEntries(
      Object.entries(responses).map(([status, response]) => [status, responseObject(response, options)]),
    );
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: { title: options.title, version: options.version, description: options.description },
    paths,
    components: { schemas: { Error: plain(options.errorSchema) } },
  };
}

function responseObject(response: ResponseDoc, options: DocumentOptions): Record<string, unknown> {
  return {
    description: response.description,
    ...(response.headers ? { headers: response.headers } : {}),
    ...(response.schema
      ? { content: mediaTypes(response.contentTypes ?? options.jsonTypes, plain(response.schema)) }
      : {}),
  };
}

/**
 * Elysia's `response` hook (validated on every reply): one schema, the 200's, or schemas by status.
 * TypeBox schemas carry a Kind symbol, which a map of statuses has not.
 */
function validatedResponses(response: unknown): Record<string, ResponseDoc> {
  if (!response || typeof response !== "object") return {};
  const byStatus =
    Object.getOwnPropertySymbols(response).length > 0 ? { 200: response } : (response as Record<string, unknown>);
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, schema]) => [
      status,
      {
        description: (schema as { description?: string }).description ?? "Success",
        schema: schema as Record<string, unknown>,
      },
    ]),
  );
}

const mediaTypes = (types: readonly string[], schema: Record<string, unknown>) =>
  Object.fromEntries(types.map((type) => [type, { schema }]));

/** Each ":name" of a route template: a required string (the router matches one path segment). */
function pathParameters(template: string): Record<string, unknown>[] {
  return [...template.matchAll(/:([^/]+)/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
}

/** The properties of a route's query schema (a TypeBox object), each a query parameter. */
function queryParameters(query: unknown): Record<string, unknown>[] {
  if (!query) return [];
  const schema = plain(query) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: "query",
      required: schema.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema: rest,
      // A repeated parameter: ?key=a&key=b.
      ...(rest.type === "array" ? { style: "form", explode: true } : {}),
    };
  });
}
