// /exporters: Confluent Platform's schema exporters (schema linking). Routes translate HTTP to
// SchemaExporters calls and answer Confluent's bodies: `{"name"}` for changes, the definition with
// its secrets hidden, the status. The exporting itself runs on the leader (../exporters/runner.ts).
import { Type as T } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { documented, type RouteDetail } from "../../platform/openapi.ts";
import { errors } from "../errors.ts";
import type { SchemaExporters } from "../exporters/service.ts";
import { fails, noContent, ok, Strings } from "./openapi.ts";

const EXPORTERS = "/exporters";
const ONE = `${EXPORTERS}/:name`;

/** The exporters' PUTs that take no body (pause, resume, reset): what is sent is ignored. */
const BODILESS = /^\/exporters\/[^/]+\/(?:pause|resume|reset)$/;
export const exporterTakesNoBody = (pathname: string) => BODILESS.test(pathname);

const NameBody = T.Object({ name: T.String() });
const Config = T.Record(T.String(), T.String(), { description: "the destination's client settings; secrets hidden" });
const InfoBody = T.Object({
  name: T.String(),
  contextType: T.String({ description: "AUTO, CUSTOM, NONE or DEFAULT" }),
  context: T.Optional(T.String()),
  subjects: T.Array(T.String()),
  subjectRenameFormat: T.Optional(T.String()),
  config: Config,
});
const InfoRequest = T.Object(
  {
    name: T.Optional(T.String()),
    contextType: T.Optional(T.String()),
    context: T.Optional(T.String()),
    subjects: T.Optional(T.Array(T.String())),
    subjectRenameFormat: T.Optional(T.String()),
    config: T.Optional(T.Record(T.String(), T.String())),
  },
  { additionalProperties: true },
);
const StatusBody = T.Object({
  name: T.String(),
  state: T.String({ description: "STARTING, RUNNING, PAUSED or ERROR" }),
  offset: T.Integer({ description: "the next _schemas offset to export" }),
  ts: T.Integer(),
  trace: T.Optional(T.String({ description: "the last error, in ERROR" })),
});

const notFound = fails("Exporter not found (40450)");
const doc = (detail: RouteDetail) => documented({ tags: ["Exporters"], ...detail });
const changed = (summary: string, conflict: string, body?: RouteDetail["body"]) =>
  doc({
    summary,
    ...(body ? { body } : {}),
    responses: { 200: ok("The exporter's name", NameBody), 404: notFound, 409: fails(conflict) },
  });

export function exporterRoutes(options: { exporters?: SchemaExporters }) {
  const exporters = (): SchemaExporters => options.exporters ?? throwIt(errors.notFound());
  const object = (body: unknown): Record<string, unknown> =>
    body && typeof body === "object" && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : throwIt(errors.badRequest("The request body must be a JSON object"));
  return new Elysia()
    .get(
      EXPORTERS,
      () => exporters().names(),
      doc({ summary: "Exporter names", responses: { 200: ok("Names", Strings) } }),
    )
    .post(
      EXPORTERS,
      async ({ body }) => ({ name: await exporters().create(object(body)) }),
      doc({
        summary: "Creates an exporter",
        body: InfoRequest,
        responses: {
          200: ok("The exporter's name", NameBody),
          409: fails(
            "Invalid name (40950), config (40951) or subjects (40952); exists already (40960); too many (40964)",
          ),
        },
      }),
    )
    .get(
      ONE,
      ({ params }) => exporters().shown(params.name),
      doc({
        summary: "An exporter's definition (secrets hidden)",
        responses: { 200: ok("The exporter", InfoBody), 404: notFound },
      }),
    )
    .put(
      ONE,
      async ({ params, body }) => ({ name: await exporters().update(params.name, object(body)) }),
      changed(
        "Updates an exporter (config entries are merged in)",
        "Invalid config (40951) or subjects (40952)",
        InfoRequest,
      ),
    )
    .delete(
      ONE,
      async ({ params }) => {
        await exporters().delete(params.name);
        return new Response(null, { status: 204 });
      },
      doc({
        summary: "Deletes a paused exporter",
        responses: { 204: noContent("Deleted"), 404: notFound, 409: fails("Not paused (40963)") },
      }),
    )
    .put(
      `${ONE}/pause`,
      async ({ params }) => ({ name: await exporters().pause(params.name) }),
      doc({ summary: "Pauses an exporter", responses: { 200: ok("The exporter's name", NameBody), 404: notFound } }),
    )
    .put(
      `${ONE}/resume`,
      async ({ params }) => ({ name: await exporters().resume(params.name) }),
      changed("Resumes a paused (or failed) exporter", "Already running (40961)"),
    )
    .put(
      `${ONE}/reset`,
      async ({ params }) => ({ name: await exporters().reset(params.name) }),
      changed("Sets a paused exporter back to the start of the schemas topic", "Not paused (40963)"),
    )
    .get(
      `${ONE}/status`,
      ({ params }) => exporters().status(params.name),
      doc({
        summary: "An exporter's state, offset and last error",
        responses: { 200: ok("The status", StatusBody), 404: notFound },
      }),
    )
    .get(
      `${ONE}/config`,
      ({ params }) => exporters().shown(params.name).config,
      doc({
        summary: "An exporter's destination config (secrets hidden)",
        responses: { 200: ok("The config", Config), 404: notFound },
      }),
    )
    .put(
      `${ONE}/config`,
      async ({ params, body }) => ({ name: await exporters().updateConfig(params.name, object(body)) }),
      changed("Merges entries into an exporter's destination config", "Invalid config (40951)", Config),
    );
}

function throwIt(err: Error): never {
  throw err;
}
