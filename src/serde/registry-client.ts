// A client of the schema registry REST API for serializers: fail-over across URLs, HTTP Basic auth,
// bounded caches (id → schema, schema → id, subject version → schema) and concurrent identical
// look-ups collapsed into one request.
import { clientTls } from "../platform/tls.ts";
import type { ParsedSettings } from "../platform/settings.ts";
import { resolvedReference, type ResolvedReference, type SchemaReference, type SchemaType } from "../schema/format.ts";
import { parseSerdeConfig, type SerdeConfig } from "./config.ts";
import { RestClientException } from "./errors.ts";
import { LruCache } from "../platform/lru.ts";

const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

export interface SchemaText {
  schema: string;
  schemaType: SchemaType;
  references: SchemaReference[];
  /** Confluent 8's GUID of the schema as registered, when the registry answered one. */
  guid?: string;
}

export interface SubjectVersion extends SchemaText {
  subject: string;
  version: number;
  id: number;
}

export class SchemaRegistryClient {
  readonly settings: ParsedSettings;
  private readonly urls: string[];
  private readonly authorization?: string;
  private readonly byId: LruCache<number, SchemaText>;
  private readonly byGuid: LruCache<string, SchemaText>;
  private readonly idBySchema: LruCache<string, number>;
  private readonly versions: LruCache<string, SubjectVersion>;
  private readonly inFlightIds = new Map<number, Promise<SchemaText>>();
  private readonly inFlightGuids = new Map<string, Promise<SchemaText>>();
  private readonly inFlightSchemas = new Map<string, Promise<number>>();
  private readonly inFlightVersions = new Map<string, Promise<SubjectVersion>>();
  private readonly tls?: { ca?: string[]; cert?: string; key?: string; checkServerIdentity?: () => undefined };

  constructor(config: SerdeConfig | ParsedSettings) {
    this.settings =
      "list" in config && typeof config.list === "function"
        ? (config as ParsedSettings)
        : parseSerdeConfig(config as SerdeConfig);
    const capacity = this.settings.int("max.schemas.per.subject");
    this.byId = new LruCache(capacity);
    this.byGuid = new LruCache(capacity);
    this.idBySchema = new LruCache(capacity);
    this.versions = new LruCache(capacity);
    const parsed = this.settings.list("schema.registry.url").map((u) => new URL(u));
    this.urls = parsed.map((u) => `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`);
    const fromUrl = parsed.find((u) => u.username);
    const userInfo =
      this.settings.string("basic.auth.credentials.source") === "USER_INFO"
        ? this.settings.string("basic.auth.user.info")
        : fromUrl
          ? `${decodeURIComponent(fromUrl.username)}:${decodeURIComponent(fromUrl.password)}`
          : "";
    if (userInfo) this.authorization = `Basic ${Buffer.from(userInfo).toString("base64")}`;
    // Confluent's client settings for an https registry: its CA, and a client certificate for mTLS.
    const ssl = clientTls(this.settings.extra, "schema.registry.");
    if (ssl.ca || ssl.cert)
      this.tls = {
        ca: ssl.ca,
        cert: ssl.cert,
        key: ssl.key,
        ...(ssl.checkHostname ? {} : { checkServerIdentity: () => undefined }),
      };
  }

  /** Registers (or finds) the schema under the subject; the id is cached. */
  register(subject: string, schema: SchemaText, normalize = false): Promise<number> {
    const key = `register\u0000${subject}\u0000${normalize}\u0000${schemaKey(schema)}`;
    return this.idBySchema.getOrLoad(key, this.inFlightSchemas, async () => {
      const body = await this.request<{ id: number; guid?: string }>(
        "POST",
        `/subjects/${enc(subject)}/versions${normalize ? "?normalize=true" : ""}`,
        requestBody(schema),
      );
      this.byId.set(body.id, body.guid ? { ...schema, guid: body.guid } : schema);
      return body.id;
    });
  }

  /** The id of a schema already registered under the subject (404 → RestClientException 40403). */
  lookup(subject: string, schema: SchemaText, normalize = false): Promise<number> {
    const key = `lookup\u0000${subject}\u0000${normalize}\u0000${schemaKey(schema)}`;
    return this.idBySchema.getOrLoad(key, this.inFlightSchemas, async () => {
      const body = await this.request<SubjectVersion>(
        "POST",
        `/subjects/${enc(subject)}${normalize ? "?normalize=true" : ""}`,
        requestBody(schema),
      );
      return body.id;
    });
  }

  schemaById(id: number): Promise<SchemaText> {
    return this.byId.getOrLoad(id, this.inFlightIds, () => this.schemaAt(`/schemas/ids/${id}`));
  }

  /** A schema by its GUID (Confluent 8's `/schemas/guids/{guid}`), for schema ids sent in record headers. */
  schemaByGuid(guid: string): Promise<SchemaText> {
    return this.byGuid.getOrLoad(guid, this.inFlightGuids, () => this.schemaAt(`/schemas/guids/${enc(guid)}`));
  }

  private async schemaAt(path: string): Promise<SchemaText> {
    const body = await this.request<{
      schema: string;
      schemaType?: SchemaType;
      references?: SchemaReference[];
      guid?: string;
    }>("GET", path);
    return {
      schema: body.schema,
      schemaType: body.schemaType ?? "AVRO",
      references: body.references ?? [],
      ...(body.guid ? { guid: body.guid } : {}),
    };
  }

  /** A subject's version; `latest` is fetched every time it is asked for uncached. */
  version(subject: string, version: number | "latest"): Promise<SubjectVersion> {
    return this.versions.getOrLoad(`${subject}\u0000${version}`, this.inFlightVersions, async () => {
      const body = await this.request<SubjectVersion & { schemaType?: SchemaType; references?: SchemaReference[] }>(
        "GET",
        `/subjects/${enc(subject)}/versions/${version}`,
      );
      return { ...body, schemaType: body.schemaType ?? "AVRO", references: body.references ?? [] };
    });
  }

  /** Fetches referenced schemas, recursively, for parsing a schema that has references. */
  async resolveReferences(references: SchemaReference[]): Promise<ResolvedReference[]> {
    return Promise.all(
      references.map(async (ref) => {
        const target = await this.version(ref.subject, ref.version === -1 ? "latest" : ref.version);
        return resolvedReference(ref, target, await this.resolveReferences(target.references));
      }),
    );
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let lastError: unknown;
    for (const base of this.urls) {
      let res: Response;
      try {
        res = await fetch(base + path, {
          method,
          headers: {
            accept: CONTENT_TYPE,
            "content-type": CONTENT_TYPE,
            ...(this.authorization ? { authorization: this.authorization } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.settings.int("request.timeout.ms")),
          ...(this.tls ? { tls: this.tls } : {}),
        });
      } catch (err) {
        lastError = err; // unreachable: try the next URL
        continue;
      }
      const text = await res.text();
      if (res.ok) return JSON.parse(text) as T;
      let error: { error_code?: number; message?: string } = {};
      try {
        error = JSON.parse(text) as typeof error;
      } catch {
        error = { error_code: 50005, message: text };
      }
      const failure = new RestClientException(
        error.message ?? res.statusText,
        res.status,
        error.error_code ?? res.status,
      );
      // A server-side failure may be one instance's problem; the caller's mistakes are final.
      if (res.status < 500) throw failure;
      lastError = failure;
    }
    if (lastError instanceof RestClientException) throw lastError;
    throw new RestClientException(
      `No schema registry reachable at ${this.urls.join(", ")}: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
      0,
      50005,
    );
  }
}

function enc(subject: string): string {
  return encodeURIComponent(subject);
}

function requestBody(schema: SchemaText): object {
  return {
    schema: schema.schema,
    ...(schema.schemaType !== "AVRO" ? { schemaType: schema.schemaType } : {}),
    ...(schema.references.length > 0 ? { references: schema.references } : {}),
  };
}

function schemaKey(schema: SchemaText): string {
  return `${schema.schemaType}\u0000${schema.schema}\u0000${JSON.stringify(schema.references)}`;
}
