// What Confluent's sink task does before the first write to an index: create the index unless it exists,
// then, unless schema.ignore (or topic.schema.ignore) holds for the record's topic, put the mapping of
// the record's value schema when the index has no mapping yet. Both happen once per index per task;
// an index that already has a mapping keeps it. With schema.ignore the index is only created and the
// server maps documents dynamically.
//
// Unlike Confluent's sink, which fails the task on a record without a value schema ("Cannot infer
// mapping without schema"), such a record (schemaless JSON, a tombstone) leaves the index to dynamic
// mapping; a later record with a schema still gets its mapping put if the index has none by then.
import type { Logger } from "../../platform/log.ts";
import { ConnectException, RetriableException } from "../../connect/api/connector.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import { indexName } from "./bulk-actions.ts";
import { retryWaitMs, type BulkClient, type ServerReply } from "./bulk-client.ts";
import { mappingJson, schemaMapping } from "./mapping.ts";
import type { SearchSinkConfig } from "./settings.ts";

export type IndicesConfig = Pick<SearchSinkConfig, "schemaIgnore" | "maxRetries" | "retryBackoffMs">;

export class Indices {
  /** Indices known to exist. */
  private readonly created = new Set<string>();
  /** Indices whose mapping was checked (and put when missing). */
  private readonly mapped = new Set<string>();

  constructor(
    private readonly config: IndicesConfig,
    private readonly client: BulkClient,
    private readonly log: Logger,
  ) {}

  /** Readies the record's index for its document: created, and mapped from its value schema when due. */
  async prepare(record: SinkRecord): Promise<void> {
    const index = indexName(record.topic);
    if (!this.created.has(index)) {
      await this.createIndex(index);
      this.created.add(index);
    }
    if (this.mapped.has(index) || this.config.schemaIgnore(record.topic) || record.valueSchema === null) return;
    if (!(await this.hasMapping(index))) {
      const mapping = mappingJson(schemaMapping(record.valueSchema));
      const reply = await this.call(`put the mapping of index ${index}`, "PUT", `${path(index)}/_mapping`, mapping);
      if (!ok(reply)) throw refused(`create the mapping of index ${index} for schema ${record.valueSchema}`, reply);
      this.log.info({ index }, "put the index mapping derived from the value schema");
      this.log.debug({ index, mapping }, "index mapping");
    }
    this.mapped.add(index);
  }

  private async createIndex(index: string): Promise<void> {
    const exists = await this.call(`check whether index ${index} exists`, "HEAD", path(index));
    if (ok(exists)) return;
    if (exists.status !== 404) throw refused(`check whether index ${index} exists`, exists);
    const created = await this.call(`create index ${index}`, "PUT", path(index));
    // Another task (or anyone) may have created it in between.
    if (ok(created) || created.text.includes("resource_already_exists_exception")) {
      if (ok(created)) this.log.info({ index }, "created the index");
      return;
    }
    throw refused(`create index ${index}`, created);
  }

  /** Whether the index (or, for an alias, an index behind it) has a mapping with anything in it. */
  private async hasMapping(index: string): Promise<boolean> {
    const reply = await this.call(`get the mapping of index ${index}`, "GET", `${path(index)}/_mapping`);
    if (!ok(reply)) throw refused(`get the mapping of index ${index}`, reply);
    const body = JSON.parse(reply.text) as Record<string, { mappings?: Record<string, unknown> } | undefined>;
    const entries = body[index] !== undefined ? [body[index]] : Object.values(body);
    return entries.some((entry) => entry?.mappings !== undefined && Object.keys(entry.mappings).length > 0);
  }

  /** One request, sent again after a back-off while no server answers or it answers 429 or 5xx. */
  private async call(
    what: string,
    method: "HEAD" | "GET" | "PUT",
    target: string,
    body?: string,
  ): Promise<ServerReply> {
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      try {
        const reply = await this.client.request(method, target, body);
        if (reply.status !== 429 && reply.status < 500) return reply;
        reason = `${reply.url} answered ${reply.status}: ${reply.text.slice(0, 500)}`;
      } catch (err) {
        if (!(err instanceof RetriableException)) throw err;
        reason = err.message;
      }
      if (attempt >= this.config.maxRetries)
        throw new ConnectException(`Failed to ${what} after ${attempt + 1} attempts: ${reason}`);
      const wait = retryWaitMs(attempt, this.config.retryBackoffMs);
      this.log.warn({ attempt: attempt + 1, waitMs: wait, reason }, `could not ${what}; retrying`);
      await Bun.sleep(wait); // back-off before the retry
    }
  }
}

function path(index: string): string {
  return `/${encodeURIComponent(index)}`;
}

function ok(reply: ServerReply): boolean {
  return reply.status >= 200 && reply.status < 300;
}

function refused(what: string, reply: ServerReply): ConnectException {
  return new ConnectException(`Failed to ${what}: ${reply.url} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
}
