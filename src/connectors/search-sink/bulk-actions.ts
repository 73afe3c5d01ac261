// Sink records as Bulk API actions (newline-delimited JSON), as Confluent's sink builds its requests:
// index = topic, id = key or topic+partition+offset, and, with key ids, external versioning by Kafka
// offset so that a re-delivered or reordered older record never overwrites a newer document.
import { jsonString } from "../../jvm/json-text.ts";
import { DataException } from "../../connect/api/data/index.ts";
import type { SinkRecord } from "../../connect/api/records.ts";
import { documentJson } from "./document.ts";
import type { SearchSinkConfig } from "./settings.ts";

export type ActionConfig = Pick<
  SearchSinkConfig,
  "keyIgnore" | "schemaIgnore" | "compactMapEntries" | "nullValues" | "writeMethod" | "maxInFlightRequests"
>;

/**
 * The index a topic writes to: index names must be lower case, at most 255 bytes, and may not start
 * with `-` or `_` nor be `.` or `..`.
 */
export function indexName(topic: string): string {
  let name = topic.toLowerCase();
  if (name.length > 255) name = name.slice(0, 255);
  if (name.startsWith("-") || name.startsWith("_")) name = name.slice(1);
  if (name === "." || name === "..") name = name.replaceAll(".", "dot");
  return name;
}

const ID_TYPES = new Set(["INT8", "INT16", "INT32", "INT64", "STRING"]);

/** The document id: the key's text (a string or an integer key), or topic+partition+offset when keys are ignored. */
export function documentId(record: SinkRecord, keyIgnore: boolean): string {
  if (keyIgnore) return `${record.topic}+${record.kafkaPartition}+${record.kafkaOffset}`;
  const key = record.key;
  if (key === null || key === undefined) throw new DataException("Key is used as document id and can not be null.");
  const type = record.keySchema?.type ?? schemalessKeyType(key);
  if (!ID_TYPES.has(type)) throw new DataException(`${type} is not supported as the document id.`);
  const id = String(key);
  if (id === "") throw new DataException("Key is used as document id and can not be empty.");
  return id;
}

/** A schemaless key's type as the JSON converter reads one: integers are bigints, other numbers doubles. */
function schemalessKeyType(key: unknown): string {
  if (typeof key === "string") return "STRING";
  if (typeof key === "bigint") return "INT64";
  if (typeof key === "number") return Number.isInteger(key) ? "INT64" : "FLOAT64";
  return typeof key === "boolean" ? "BOOLEAN" : "STRUCT";
}

/** Where a record came from, for logs and errors. */
export function describeRecord(record: SinkRecord): string {
  return `record from topic=${record.topic} partition=${record.kafkaPartition} offset=${record.kafkaOffset}`;
}

/**
 * The bulk lines for one record (metadata line, then the document unless it is a delete), or null when
 * the record writes nothing (a tombstone with behavior.on.null.values=ignore, or =delete without a key).
 * Throws DataException for a record that cannot be written.
 */
export function bulkAction(record: SinkRecord, config: ActionConfig): string | null {
  const keyIgnore = config.keyIgnore(record.topic);
  const index = indexName(record.topic);
  if (record.value === null || record.value === undefined) {
    if (config.nullValues === "ignore") return null;
    if (config.nullValues === "fail")
      throw new DataException(
        `${describeRecord(record)} has a null value (to ignore future records like this change the configuration property 'behavior.on.null.values' from 'fail' to 'ignore')`,
      );
    // Without a key there is no document to delete: an offset-based id was never used for another record.
    if (record.key === null || record.key === undefined) return null;
    return metadata("delete", index, documentId(record, keyIgnore), keyIgnore ? undefined : record.kafkaOffset);
  }
  const id = documentId(record, keyIgnore);
  const document = documentJson(record.topic, record.valueSchema, record.value, {
    ignoreSchema: config.schemaIgnore(record.topic),
    compactMapEntries: config.compactMapEntries,
  });
  if (config.writeMethod === "upsert") {
    // Concurrent bulk requests may update the same document: retry such conflicts a few times.
    const retries = Math.min(config.maxInFlightRequests, 5);
    return `{"update":{"_index":${jsonString(index)},"_id":${jsonString(id)},"retry_on_conflict":${retries}}}\n{"doc":${document},"doc_as_upsert":true}`;
  }
  return `${metadata("index", index, id, keyIgnore ? undefined : record.kafkaOffset)}\n${document}`;
}

function metadata(action: "index" | "delete", index: string, id: string, version: number | undefined): string {
  const versioning = version === undefined ? "" : `,"version":${version},"version_type":"external"`;
  return `{"${action}":{"_index":${jsonString(index)},"_id":${jsonString(id)}${versioning}}}`;
}
