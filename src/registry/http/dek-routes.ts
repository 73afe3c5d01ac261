// /dek-registry/v1/keks: Confluent's DEK registry (KEKs, and per subject the versions of its DEKs).
// Routes translate HTTP to DekRegistry calls and answer Confluent's Kek and Dek entities.
import { Elysia } from "elysia";
import { dekErrors } from "../dek/errors.ts";
import { errors } from "../errors.ts";
import { parseAlgorithm, propsJson, type DekAlgorithm } from "../dek/records.ts";
import type { DekRegistry, DekView } from "../dek/service.ts";
import type { StoredKek } from "../dek/state.ts";
import { kekResource, subjectResource } from "../permissions.ts";
import { parseVersionSpec } from "../service.ts";
import { named, type RegistryAccess } from "./access.ts";
import { RawJson } from "./entities.ts";
import { flag, int, type Query } from "./query.ts";

const KEKS = "/dek-registry/v1/keks";
/** Confluent's list limits default to no limit (kek.search.max.limit and the like are Integer.MAX_VALUE). */
const MAX_LIMIT = 2 ** 31 - 1;

/** The DEK registry's POSTs that take no body (undelete, test): what is sent is ignored, as Jersey does. */
const BODILESS = /^\/dek-registry\/v1\/keks\/[^/]+\/(?:test|undelete|deks\/[^/]+\/(?:versions\/[^/]+\/)?undelete)$/;
export const takesNoBody = (pathname: string) => BODILESS.test(pathname);

export function dekRoutes(dek: DekRegistry, options: { access?: RegistryAccess }) {
  const { access } = options;
  const demand = (request: Request, operation: "Read" | "Write", resource: string) => {
    if (access && !access.may(request, operation, resource)) throw errors.forbidden(operation, named(resource));
  };
  return (
    new Elysia()
      .get(KEKS, ({ query, request }) => {
        const prefixes = new URL(request.url).searchParams.getAll("subjectPrefix");
        const names = dek.kekNames(prefixes, flag(query, "deleted")).filter((n) => !access || access.may(request, "Read", kekResource(n)));
        return page(names, query);
      })
      .post(KEKS, async ({ body, query, request }) => {
        const name = (body as Record<string, unknown>).name;
        if (typeof name === "string") demand(request, "Write", kekResource(name));
        return kekBody(await dek.createKek(object(body), flag(query, "testSharing")));
      })
      .get(`${KEKS}/:name`, ({ params, query }) => kekBody(dek.getKek(params.name, flag(query, "deleted"))))
      .put(`${KEKS}/:name`, async ({ params, body, query }) => kekBody(await dek.updateKek(params.name, object(body), flag(query, "testSharing"))))
      .delete(`${KEKS}/:name`, async ({ params, query }) => noContent(await dek.deleteKek(params.name, flag(query, "permanent"))))
      .post(`${KEKS}/:name/undelete`, async ({ params }) => noContent(await dek.undeleteKek(params.name)))
      .post(`${KEKS}/:name/test`, ({ params }) => testBody(dek.testKek(params.name)))
      .get(`${KEKS}/:name/deks`, ({ params, query, request }) => {
        const subjects = dek.dekSubjects(params.name, flag(query, "deleted")).filter((s) => !access || access.may(request, "Read", subjectResource(s)));
        return page(subjects, query);
      })
      // Deprecated by Confluent for the route with the subject in the path, but still served.
      .post(`${KEKS}/:name/deks`, async ({ params, body, query, request }) => {
        const { subject } = object(body);
        if (typeof subject !== "string") throw dekErrors.invalidKey("subject");
        demand(request, "Read", subjectResource(subject));
        return dekBody(await dek.createDek(params.name, subject, object(body), flag(query, "rewrap")));
      })
      .get(`${KEKS}/:name/deks/:subject`, ({ params, query }) => dekBody(dek.getDek(params.name, params.subject, 1, algorithm(query), flag(query, "deleted"))))
      .post(`${KEKS}/:name/deks/:subject`, async ({ params, body, query }) =>
        dekBody(await dek.createDek(params.name, params.subject, object(body), flag(query, "rewrap"))),
      )
      .delete(`${KEKS}/:name/deks/:subject`, async ({ params, query }) =>
        noContent(await dek.deleteDek(params.name, params.subject, algorithm(query), flag(query, "permanent"))),
      )
      .post(`${KEKS}/:name/deks/:subject/undelete`, async ({ params, query }) => noContent(await dek.undeleteDek(params.name, params.subject, algorithm(query))))
      .get(`${KEKS}/:name/deks/:subject/versions`, ({ params, query }) =>
        page(dek.dekVersions(params.name, params.subject, algorithm(query), flag(query, "deleted")), query),
      )
      .get(`${KEKS}/:name/deks/:subject/versions/:version`, ({ params, query }) =>
        dekBody(dek.getDek(params.name, params.subject, parseVersionSpec(params.version), algorithm(query), flag(query, "deleted"))),
      )
      .delete(`${KEKS}/:name/deks/:subject/versions/:version`, async ({ params, query }) =>
        noContent(await dek.deleteDekVersion(params.name, params.subject, parseVersionSpec(params.version), algorithm(query), flag(query, "permanent"))),
      )
      .post(`${KEKS}/:name/deks/:subject/versions/:version/undelete`, async ({ params, query }) =>
        noContent(await dek.undeleteDekVersion(params.name, params.subject, parseVersionSpec(params.version), algorithm(query))),
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
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw errors.badRequest("Malformed request body: expected a JSON object");
  return body as Record<string, unknown>;
}

function noContent(_: void): Response {
  return new Response(null, { status: 204 });
}

/** Confluent's Kek entity: kmsProps in key order (written by hand, see propsJson), `deleted` only when true. */
function kekBody(kek: StoredKek): RawJson {
  const v = kek.value;
  const head = JSON.stringify({ name: v.name, kmsType: v.kmsType, kmsKeyId: v.kmsKeyId }).slice(0, -1);
  const tail = JSON.stringify({ ...(v.doc !== undefined ? { doc: v.doc } : {}), shared: v.shared, ts: kek.ts, ...(v.deleted ? { deleted: true } : {}) }).slice(1);
  return new RawJson(`${head},"kmsProps":${propsJson(v.kmsProps)},${tail}`);
}

/** POST /keks/{name}/test answers the stored KeyEncryptionKey itself, its offset and timestamp included. */
function testBody(kek: StoredKek): RawJson {
  const v = kek.value;
  const head = JSON.stringify({ name: v.name, kmsType: v.kmsType, kmsKeyId: v.kmsKeyId }).slice(0, -1);
  const tail = JSON.stringify({ ...(v.doc !== undefined ? { doc: v.doc } : {}), shared: v.shared, deleted: v.deleted, type: "KEK", offset: kek.offset, ts: kek.ts }).slice(1);
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
