// /dek-registry/v1/keks: Confluent's DEK registry (KEKs, and per subject the versions of its DEKs).
// Routes translate HTTP to DekRegistry calls and answer Confluent's Kek and Dek entities.
import { Elysia, t } from "elysia";
import { documented, type RouteDetail } from "../../platform/openapi.ts";
import { dekErrors } from "../dek/errors.ts";
import { errors } from "../errors.ts";
import { parseAlgorithm, propsJson, type DekAlgorithm } from "../dek/records.ts";
import type { DekRegistry, DekView } from "../dek/service.ts";
import type { StoredKek } from "../dek/state.ts";
import { kekResource, subjectResource } from "../permissions.ts";
import { parseVersionSpec } from "../reads.ts";
import { named, type RegistryAccess } from "./access.ts";
import { RawJson } from "./entities.ts";
import {
  DekBody,
  DekRequest,
  fails,
  KekBody,
  KekRequest,
  KekTestBody,
  noContent,
  ok,
  Q,
  Strings,
  Integers,
} from "./openapi.ts";
import { flag, int, type Query } from "./query.ts";

const KEKS = "/dek-registry/v1/keks";
/** Confluent's list limits default to no limit (kek.search.max.limit and the like are Integer.MAX_VALUE). */
const MAX_LIMIT = 2 ** 31 - 1;

/** The DEK registry's POSTs that take no body (undelete, test): what is sent is ignored, as Jersey does. */
const BODILESS = /^\/dek-registry\/v1\/keks\/[^/]+\/(?:test|undelete|deks\/[^/]+\/(?:versions\/[^/]+\/)?undelete)$/;
export const takesNoBody = (pathname: string) => BODILESS.test(pathname);

const kekNotFound = fails("KEK not found (40470)");
const gone = "not soft-deleted first (40471), or soft-deleted (40472)";
const dekNotFound = fails(`KEK or DEK not found (40470), ${gone}`);
const algorithmQuery = t.Optional(
  t.String({ description: "AES128_GCM, AES256_GCM (the default) or AES256_SIV; another answers 404" }),
);
const doc = (detail: RouteDetail) => documented({ tags: ["DEK registry"], ...detail });
const read = (
  summary: string,
  body: RouteDetail["responses"],
  query: Record<string, ReturnType<typeof t.Optional>> = {},
) => ({
  query: t.Object({ deleted: Q.deleted, ...query }),
  ...doc({ summary, responses: body }),
});
const deleted = (summary: string, notFound = dekNotFound) => ({
  query: t.Object({ permanent: Q.permanent, algorithm: algorithmQuery }),
  ...doc({ summary, responses: { 204: noContent("Deleted"), 404: notFound, 422: fails("Invalid value (42271)") } }),
});
const undeleted = (summary: string) => ({
  query: t.Object({ algorithm: algorithmQuery }),
  ...doc({ summary, responses: { 204: noContent("Undeleted"), 404: dekNotFound } }),
});
const dekCreated = (summary: string, deprecated = false) => ({
  query: t.Object({
    rewrap: t.Optional(t.String({ description: "rewrap the DEK's key material with the KEK's current key" })),
  }),
  ...doc({
    summary,
    deprecated,
    body: DekRequest,
    responses: {
      200: ok("The DEK", DekBody),
      404: kekNotFound,
      409: fails("The DEK already exists (40971), or too many keys (40972)"),
      422: fails("Invalid or missing field (42271)"),
    },
  }),
});

export function dekRoutes(dek: DekRegistry, options: { access?: RegistryAccess }) {
  const { access } = options;
  const demand = (request: Request, operation: "Read" | "Write", resource: string) => {
    if (access && !access.may(request, operation, resource)) throw errors.forbidden(operation, named(resource));
  };
  return (
    new Elysia()
      .get(
        KEKS,
        ({ query, request }) => {
          const prefixes = new URL(request.url).searchParams.getAll("subjectPrefix");
          const names = dek
            .kekNames(prefixes, flag({ deleted: query.deleted }, "deleted"))
            .filter((n) => !access || access.may(request, "Read", kekResource(n)));
          return page(names, { offset: query.offset, limit: query.limit });
        },
        {
          query: t.Object({
            subjectPrefix: t.Optional(
              t.Array(t.String({ description: "only KEKs with a DEK of a subject starting with one of these" })),
            ),
            deleted: Q.deleted,
            offset: Q.offset,
            limit: Q.limit,
          }),
          ...doc({ summary: "KEK names", responses: { 200: ok("KEK names", Strings) } }),
        },
      )
      .post(
        KEKS,
        async ({ body, query, request }) => {
          const { name } = object(body);
          if (typeof name === "string") demand(request, "Write", kekResource(name));
          return kekBody(await dek.createKek(object(body), flag(query, "testSharing")));
        },
        {
          query: t.Object({
            testSharing: t.Optional(t.String({ description: "check the registry can use a shared KEK's KMS first" })),
          }),
          ...doc({
            summary: "Creates a KEK",
            body: KekRequest,
            responses: {
              200: ok("The KEK", KekBody),
              409: fails("The KEK already exists (40971), or too many keys (40972)"),
              422: fails("Invalid or missing field (42271)"),
            },
          }),
        },
      )
      .get(
        `${KEKS}/:name`,
        ({ params, query }) => kekBody(dek.getKek(params.name, flag(query, "deleted"))),
        read("A KEK", { 200: ok("The KEK", KekBody), 404: kekNotFound }),
      )
      .put(
        `${KEKS}/:name`,
        async ({ params, body, query }) =>
          kekBody(await dek.updateKek(params.name, object(body), flag(query, "testSharing"))),
        {
          query: t.Object({
            testSharing: t.Optional(t.String({ description: "check the registry can use a shared KEK's KMS first" })),
          }),
          ...doc({
            summary: "Changes a KEK's properties, doc and sharing",
            body: t.Object(
              {
                kmsProps: t.Optional(t.Record(t.String(), t.String())),
                doc: t.Optional(t.String()),
                shared: t.Optional(t.Boolean()),
              },
              { additionalProperties: true },
            ),
            responses: { 200: ok("The KEK", KekBody), 404: kekNotFound },
          }),
        },
      )
      .delete(
        `${KEKS}/:name`,
        async ({ params, query }) => empty(await dek.deleteKek(params.name, flag(query, "permanent"))),
        {
          query: t.Object({ permanent: Q.permanent }),
          ...doc({
            summary: "Deletes a KEK (soft, then permanent)",
            responses: {
              204: noContent("Deleted"),
              404: fails(`KEK not found (40470), ${gone}`),
              422: fails("DEKs still use it (42272)"),
            },
          }),
        },
      )
      .post(
        `${KEKS}/:name/undelete`,
        async ({ params }) => empty(await dek.undeleteKek(params.name)),
        doc({ summary: "Undeletes a KEK", responses: { 204: noContent("Undeleted"), 404: kekNotFound } }),
      )
      .post(
        `${KEKS}/:name/test`,
        ({ params }) => testBody(dek.testKek(params.name)),
        doc({ summary: "Tests a KEK's KMS", responses: { 200: ok("The stored KEK", KekTestBody), 404: kekNotFound } }),
      )
      .get(
        `${KEKS}/:name/deks`,
        ({ params, query, request }) => {
          const subjects = dek
            .dekSubjects(params.name, flag(query, "deleted"))
            .filter((s) => !access || access.may(request, "Read", subjectResource(s)));
          return page(subjects, query);
        },
        read(
          "The subjects of a KEK's DEKs",
          { 200: ok("Subjects", Strings), 404: kekNotFound },
          { offset: Q.offset, limit: Q.limit },
        ),
      )
      // Deprecated by Confluent for the route with the subject in the path, but still served.
      .post(
        `${KEKS}/:name/deks`,
        async ({ params, body, query, request }) => {
          const { subject } = object(body);
          if (typeof subject !== "string") throw dekErrors.invalidKey("subject");
          demand(request, "Read", subjectResource(subject));
          return dekBody(await dek.createDek(params.name, subject, object(body), flag(query, "rewrap")));
        },
        dekCreated("Creates a DEK (the subject in the body)", true),
      )
      .get(
        `${KEKS}/:name/deks/:subject`,
        ({ params, query }) =>
          dekBody(dek.getDek(params.name, params.subject, 1, algorithm(query), flag(query, "deleted"))),
        read(
          "A subject's DEK (version 1)",
          { 200: ok("The DEK", DekBody), 404: dekNotFound },
          { algorithm: algorithmQuery },
        ),
      )
      .post(
        `${KEKS}/:name/deks/:subject`,
        async ({ params, body, query }) =>
          dekBody(await dek.createDek(params.name, params.subject, object(body), flag(query, "rewrap"))),
        dekCreated("Creates a version of a subject's DEK"),
      )
      .delete(
        `${KEKS}/:name/deks/:subject`,
        async ({ params, query }) =>
          empty(await dek.deleteDek(params.name, params.subject, algorithm(query), flag(query, "permanent"))),
        deleted("Deletes every version of a subject's DEK"),
      )
      .post(
        `${KEKS}/:name/deks/:subject/undelete`,
        async ({ params, query }) => empty(await dek.undeleteDek(params.name, params.subject, algorithm(query))),
        undeleted("Undeletes a subject's DEK"),
      )
      .get(
        `${KEKS}/:name/deks/:subject/versions`,
        ({ params, query }) =>
          page(dek.dekVersions(params.name, params.subject, algorithm(query), flag(query, "deleted")), query),
        read(
          "The versions of a subject's DEK",
          { 200: ok("Versions", Integers), 404: dekNotFound },
          { algorithm: algorithmQuery, offset: Q.offset, limit: Q.limit },
        ),
      )
      .get(
        `${KEKS}/:name/deks/:subject/versions/:version`,
        ({ params, query }) =>
          dekBody(
            dek.getDek(
              params.name,
              params.subject,
              parseVersionSpec(params.version),
              algorithm(query),
              flag(query, "deleted"),
            ),
          ),
        read(
          "A version of a subject's DEK (a number, `latest` or -1)",
          { 200: ok("The DEK", DekBody), 404: dekNotFound },
          { algorithm: algorithmQuery },
        ),
      )
      .delete(
        `${KEKS}/:name/deks/:subject/versions/:version`,
        async ({ params, query }) =>
          empty(
            await dek.deleteDekVersion(
              params.name,
              params.subject,
              parseVersionSpec(params.version),
              algorithm(query),
              flag(query, "permanent"),
            ),
          ),
        deleted("Deletes a version of a subject's DEK"),
      )
      .post(
        `${KEKS}/:name/deks/:subject/versions/:version/undelete`,
        async ({ params, query }) =>
          empty(
            await dek.undeleteDekVersion(
              params.name,
              params.subject,
              parseVersionSpec(params.version),
              algorithm(query),
            ),
          ),
        undeleted("Undeletes a version of a subject's DEK"),
      )
  );
}

/** Confluent's offset and limit: skip `offset`, then at most `limit` when it is positive. */
function page<T>(items: T[], query: Query): T[] {
  const offset = Math.max(0, int(query.offset, 0));
  const limit = int(query.limit, -1);
  return items.slice(offset, offset + (limit > 0 && limit <= MAX_LIMIT ? limit : MAX_LIMIT));
}

/** The `algorithm` query parameter; one that is not a DekFormat makes the resource not match (Jersey's 404). */
function algorithm(query: Query): DekAlgorithm | undefined {
  if (query.algorithm === undefined) return undefined;
  const parsed = parseAlgorithm(query.algorithm);
  if (!parsed) throw errors.notFound();
  return parsed;
}

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw errors.badRequest("Malformed request body: expected a JSON object");
  return body as Record<string, unknown>;
}

function empty(_: unknown): Response {
  return new Response(null, { status: 204 });
}

/** Confluent's Kek entity: kmsProps in key order (written by hand, see propsJson), `deleted` only when true. */
function kekBody(kek: StoredKek): RawJson {
  const v = kek.value;
  const head = JSON.stringify({ name: v.name, kmsType: v.kmsType, kmsKeyId: v.kmsKeyId }).slice(0, -1);
  const tail = JSON.stringify({
    ...(v.doc !== undefined ? { doc: v.doc } : {}),
    shared: v.shared,
    ts: kek.ts,
    ...(v.deleted ? { deleted: true } : {}),
  }).slice(1);
  return new RawJson(`${head},"kmsProps":${propsJson(v.kmsProps)},${tail}`);
}

/** POST /keks/{name}/test answers the stored KeyEncryptionKey itself, its offset and timestamp included. */
function testBody(kek: StoredKek): RawJson {
  const v = kek.value;
  const head = JSON.stringify({ name: v.name, kmsType: v.kmsType, kmsKeyId: v.kmsKeyId }).slice(0, -1);
  const tail = JSON.stringify({
    ...(v.doc !== undefined ? { doc: v.doc } : {}),
    shared: v.shared,
    deleted: v.deleted,
    type: "KEK",
    offset: kek.offset,
    ts: kek.ts,
  }).slice(1);
  return new RawJson(`${head},"kmsProps":${propsJson(v.kmsProps)},${tail}`);
}

/** Confluent's Dek entity. */
function dekBody({ stored, keyMaterial }: DekView) {
  const v = stored.value;
  return {
    kekName: v.kekName,
    subject: v.subject,
    version: v.version,
    algorithm: v.algorithm,
    ...(v.encryptedKeyMaterial !== undefined ? { encryptedKeyMaterial: v.encryptedKeyMaterial } : {}),
    ...(keyMaterial !== undefined ? { keyMaterial } : {}),
    ts: stored.ts,
    ...(v.deleted ? { deleted: true } : {}),
  };
}
