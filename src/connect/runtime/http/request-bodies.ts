// Request bodies as Kafka Connect's resources receive them: JSON only (anything else is 415), parsed
// within Jackson's limits and bound to the resource's types. Where Jackson cannot bind a body Kafka
// answers 500 with Jackson's message; Sluice answers 400, the caller's mistake, with the first line of
// that message (Jackson adds a source location).
import { jsonNestingDepth, jsonSyntaxProblem, MAX_NESTING_DEPTH } from "../../../jvm/json-text.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import type { OffsetsView } from "../herder/herder.ts";

/** A JSON request body; undefined when empty. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  if (jsonNestingDepth(text, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    throw new ConnectRestError(
      400,
      `Document nesting depth (${MAX_NESTING_DEPTH + 1}) exceeds the maximum allowed (${MAX_NESTING_DEPTH}, from \`StreamReadConstraints.getMaxNestingDepth()\`)`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    // In Jackson's words (Kafka's exception mapper answers them 500).
    throw connectErrors.badRequest(jsonSyntaxProblem(text));
  }
}

/** Bodies as parsed for the routes that take one, kept for forwarding. */
const parsedBodies = new WeakMap<Request, unknown>();

/** The body the request's route parsed (undefined when its route takes none). */
export const parsedBody = (request: Request): unknown => parsedBodies.get(request);

/**
 * The parser of the routes that take a body, given to each of them: Kafka's resources without a body
 * parameter never read it (Elysia would parse every route's body for a global parse hook).
 */
export const JSON_BODY = {
  parse: async ({ request }: { request: Request }) => {
    // Blank is null, as Jersey's Jackson provider reads empty input; undefined would make Elysia try
    // its own parser next, on a body already read.
    const body = parseJsonBody(await request.text()) ?? null;
    parsedBodies.set(request, body);
    return body;
  },
};

/**
 * Whether Jersey would refuse the request 415: Kafka's resources consume application/json only, and
 * a body sent without a Content-Type is application/octet-stream to it.
 */
export function unsupportedMediaType(request: Request): boolean {
  const bodySent = Number(request.headers.get("content-length") ?? 0) > 0 || request.headers.has("transfer-encoding");
  const type = request.headers.get("content-type") ?? (bodySent ? "application/octet-stream" : null);
  return type !== null && !/^application\/json\s*(;|$)/i.test(type.trim());
}

const JACKSON_TOKENS: Record<string, [string, string]> = {
  object: ["Object", "START_OBJECT"],
  array: ["Array", "START_ARRAY"],
  string: ["String", "VALUE_STRING"],
  number: ["Integer", "VALUE_NUMBER_INT"],
  boolean: ["Boolean", "VALUE_TRUE"],
};
const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const cannotDeserialize = (javaType: string, value: unknown) => {
  const [kind, token] = JACKSON_TOKENS[kindOf(value)] ?? ["Null", "VALUE_NULL"];
  return new ConnectRestError(
    400,
    `Cannot deserialize value of type \`${javaType}\` from ${kind} value (token \`JsonToken.${token}\`)`,
  );
};

/** A Map<String,String> body: scalars become strings as Jackson coerces them; null stays null. */
export function configMap(body: unknown): Record<string, string | null> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw cannotDeserialize("java.util.LinkedHashMap<java.lang.String,java.lang.String>", body);
  const out: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== null && typeof value === "object") throw cannotDeserialize("java.lang.String", value);
    out[key] = value === null ? null : String(value);
  }
  return out;
}

const CREATE_FIELDS = ["name", "config", "initial_state"];

/** CreateConnectorRequest as Jackson binds it: unknown fields are refused. */
export function createRequest(body: unknown): {
  name?: string;
  config?: Record<string, string | null>;
  initialState?: string;
} {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw cannotDeserialize("org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest", body);
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!CREATE_FIELDS.includes(key)) {
      throw new ConnectRestError(
        400,
        `Unrecognized field "${key}" (class org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest), not marked as ignorable (3 known properties: "config", "name", "initial_state"])`,
      );
    }
  }
  const text = (v: unknown, javaType: string) => {
    if (v === undefined || v === null) return undefined;
    if (typeof v === "object") throw cannotDeserialize(javaType, v);
    return String(v);
  };
  return {
    name: text(fields.name, "java.lang.String"),
    config: fields.config === undefined || fields.config === null ? undefined : configMap(fields.config),
    initialState: text(
      fields.initial_state,
      "org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest$InitialState",
    ),
  };
}

/** ConnectorOffsets: {"offsets": [{"partition": {...}, "offset": {...} | null}]}. */
export function offsetsRequest(body: unknown): OffsetsView["offsets"] | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== "object" || Array.isArray(body))
    throw cannotDeserialize("org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets", body);
  const offsets = (body as { offsets?: unknown }).offsets;
  if (offsets === undefined || offsets === null) return undefined;
  if (!Array.isArray(offsets))
    throw cannotDeserialize(
      "java.util.ArrayList<org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset>",
      offsets,
    );
  return offsets.map((entry: unknown) => {
    if (entry === null)
      throw new ConnectRestError(
        400,
        'Cannot invoke "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset.partition()" because "offset" is null',
      );
    if (typeof entry !== "object" || Array.isArray(entry))
      throw cannotConstruct("org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset", entry);
    const { partition, offset } = entry as { partition?: unknown; offset?: unknown };
    // A null partition goes on to the herder and connector, which refuse it with their own messages.
    return { partition: objectMap(partition) as Record<string, unknown>, offset: objectMap(offset) };
  });
}

/** A Map<String,Object> field: null stays null; a scalar or array cannot be bound. */
function objectMap(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value) || typeof value === "number" || typeof value === "boolean")
    throw cannotDeserialize("java.util.LinkedHashMap<java.lang.String,java.lang.Object>", value);
  if (typeof value === "string") throw cannotConstruct("java.util.LinkedHashMap", value);
  return value as Record<string, unknown>;
}

/** Jackson's answer for a scalar where it needs an object with a constructor. */
function cannotConstruct(javaType: string, value: unknown): ConnectRestError {
  const [kind, argument] =
    typeof value === "string"
      ? ["String", `String value ('${value}')`]
      : typeof value === "number"
        ? [Number.isInteger(value) ? "int/Int" : "double/Double", `Number value (${value})`]
        : ["boolean/Boolean", `Boolean value (${value})`];
  return new ConnectRestError(
    400,
    `Cannot construct instance of \`${javaType}\` (although at least one Creator exists): no ${kind}-argument constructor/factory method to deserialize from ${argument}`,
  );
}

/** A logger level request: a Map<String,String> whose "level" may be missing. */
export function levelRequest(body: unknown): string | undefined {
  const level = configMap(body ?? {}).level;
  return level ?? undefined;
}
