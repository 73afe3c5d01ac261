// Settings of the Elasticsearch/OpenSearch sink under Confluent's names (ElasticsearchSinkConnectorConfig),
// so existing connector JSON works unchanged.
import { SettingsDefinition, type ParsedSettings, type Setting } from "../../platform/settings.ts";
import { searchHttps, SECURITY_PROTOCOL, SSL_PREFIX, type SearchHttps } from "./https.ts";
import { searchSinkUnsupportedSettings } from "./unsupported-settings.ts";

export type NullValueBehavior = "ignore" | "delete" | "fail";
export type MalformedDocumentBehavior = "ignore" | "warn" | "fail";
export type WriteMethod = "insert" | "upsert";

/** Every URL must be http(s): the sink speaks HTTP to it (Confluent's wording for a URL that does not parse). */
function urlsProblem(value: unknown): string | undefined {
  for (const url of value as string[]) {
    let scheme: string;
    try {
      scheme = new URL(url).protocol;
    } catch {
      return `The provided url '${url}' is not a valid url.`;
    }
    if (scheme !== "http:" && scheme !== "https:")
      return `The provided url '${url}' is not a valid url: its scheme must be http or https.`;
  }
  return undefined;
}

const STORE_TYPES = ["JKS", "PKCS12", "PEM"];

/** Kafka's client SSL settings, which Confluent's sink embeds under elastic.https. (group Security). */
const sslSettings: Setting[] = (
  [
    {
      name: "ssl.truststore.location",
      type: "string",
      importance: "high",
      doc: "CA certificates the server's certificate must be signed by: a PKCS12 file, or PEM certificates (with ssl.truststore.type=PEM). When neither it nor ssl.truststore.certificates is set, the runtime's CA certificates are trusted.",
    },
    {
      name: "ssl.truststore.password",
      type: "password",
      importance: "high",
      doc: "Password of the PKCS12 trust store.",
    },
    {
      name: "ssl.truststore.type",
      type: "string",
      default: "JKS",
      oneOf: STORE_TYPES,
      importance: "medium",
      doc: "Format of the trust store. JKS reads a PKCS12 file as Java does; a real JKS file is refused: convert it with `keytool -importkeystore -deststoretype PKCS12`.",
    },
    {
      name: "ssl.truststore.certificates",
      type: "password",
      importance: "high",
      doc: "Trusted CA certificates as PEM text, instead of a trust store file.",
    },
    {
      name: "ssl.keystore.location",
      type: "string",
      importance: "high",
      doc: "Client certificate for servers that require one (mutual TLS): a PKCS12 file, or a PEM file holding the private key and the certificate chain (with ssl.keystore.type=PEM).",
    },
    { name: "ssl.keystore.password", type: "password", importance: "high", doc: "Password of the PKCS12 key store." },
    {
      name: "ssl.keystore.type",
      type: "string",
      default: "JKS",
      oneOf: STORE_TYPES,
      importance: "medium",
      doc: "Format of the key store, as ssl.truststore.type.",
    },
    {
      name: "ssl.key.password",
      type: "password",
      importance: "high",
      doc: "Password of an encrypted private key in a PEM key store.",
    },
    {
      name: "ssl.keystore.key",
      type: "password",
      importance: "high",
      doc: "Client private key as unencrypted PKCS8 PEM text, instead of a key store file (with ssl.keystore.certificate.chain).",
    },
    {
      name: "ssl.keystore.certificate.chain",
      type: "password",
      importance: "high",
      doc: "Client certificate chain as PEM text, for ssl.keystore.key.",
    },
    {
      name: "ssl.endpoint.identification.algorithm",
      type: "string",
      default: "https",
      importance: "low",
      doc: "https checks that the server's certificate is issued for the host name of the URL; empty skips that check (the certificate is still verified).",
    },
  ] satisfies Setting[]
).map((s) => ({ ...s, name: `${SSL_PREFIX}${s.name}`, group: "Security" }));

export const searchSinkSettings = new SettingsDefinition([
  {
    name: "connection.url",
    type: "list",
    required: true,
    validate: urlsProblem,
    importance: "high",
    group: "Connector",
    doc: "Comma-separated list of Elasticsearch/OpenSearch HTTP URLs, e.g. http://es1:9200,http://es2:9200. Requests go to the first that answers; on a connection failure the next one is tried. https:// URLs use TLS (see elastic.security.protocol).",
  },
  {
    name: "connection.username",
    type: "string",
    importance: "medium",
    group: "Connector",
    doc: "User name for HTTP Basic authentication (none when empty).",
  },
  {
    name: "connection.password",
    type: "password",
    importance: "medium",
    group: "Connector",
    doc: "Password for HTTP Basic authentication.",
  },
  {
    name: "type.name",
    type: "string",
    importance: "low",
    group: "Data Conversion",
    doc: "Mapping type of connector versions before 11. Accepted and ignored: Elasticsearch 7+ and OpenSearch have one type per index (_doc).",
  },
  {
    name: "key.ignore",
    type: "boolean",
    default: false,
    importance: "high",
    group: "Data Conversion",
    doc: "Whether to ignore record keys: true uses topic+partition+offset as the document id, false the key (a string or an integer).",
  },
  {
    name: "topic.key.ignore",
    type: "list",
    default: [],
    importance: "low",
    group: "Data Conversion",
    doc: "Topics for which key.ignore is true whatever its value.",
  },
  {
    name: "schema.ignore",
    type: "boolean",
    default: false,
    importance: "low",
    group: "Data Conversion",
    doc: "Whether to ignore value schemas: true writes values as the JSON converter writes them (Decimals stay base64) and leaves the index to the server's dynamic mapping. False converts logical types for search (Decimal as a number) and, before the first write to an index without a mapping, puts one derived from the value schema.",
  },
  {
    name: "topic.schema.ignore",
    type: "list",
    default: [],
    importance: "low",
    group: "Data Conversion",
    doc: "Topics for which schema.ignore is true whatever its value.",
  },
  {
    name: "compact.map.entries",
    type: "boolean",
    default: true,
    importance: "low",
    group: "Data Conversion",
    doc: 'Whether maps with string keys are written as objects ({"k":v}) rather than arrays of {"key":k,"value":v} documents.',
  },
  {
    name: "drop.invalid.message",
    type: "boolean",
    default: false,
    importance: "low",
    group: "Data Conversion",
    doc: "Whether to skip, with a warning, records that cannot be turned into a request (e.g. a null key used as id) instead of failing the task.",
  },
  {
    name: "behavior.on.null.values",
    type: "string",
    default: "fail",
    oneOf: ["ignore", "delete", "fail"],
    importance: "low",
    group: "Data Conversion",
    doc: "What a record with a null value (a tombstone) does: ignore it, delete the document with the key's id, or fail the task.",
  },
  {
    name: "behavior.on.malformed.documents",
    type: "string",
    default: "fail",
    oneOf: ["ignore", "warn", "fail"],
    importance: "low",
    group: "Data Conversion",
    doc: "What a document the server rejects as malformed (e.g. a field that does not fit the index mapping) does: skip it, skip it with a warning, or fail the task.",
  },
  {
    name: "write.method",
    type: "string",
    default: "insert",
    oneOf: ["insert", "upsert"],
    importance: "low",
    group: "Data Conversion",
    doc: "insert replaces the whole document (bulk index); upsert merges the value into an existing document or creates it (bulk update with doc_as_upsert).",
  },
  {
    name: "batch.size",
    type: "int",
    default: 2000,
    min: 1,
    max: 1000000,
    importance: "medium",
    group: "Connector",
    doc: "Most records in one bulk request.",
  },
  {
    name: "bulk.size.bytes",
    type: "long",
    default: 5 * 1024 * 1024,
    min: 1,
    importance: "low",
    group: "Connector",
    doc: "Most bytes in one bulk request (one record over it is sent alone).",
  },
  {
    name: "max.in.flight.requests",
    type: "int",
    default: 5,
    min: 1,
    max: 1000,
    importance: "medium",
    group: "Connector",
    doc: "Most bulk requests in flight at once; put() waits for one to finish beyond that.",
  },
  {
    name: "max.buffered.records",
    type: "int",
    default: 20000,
    min: 1,
    importance: "low",
    group: "Connector",
    doc: "Most records buffered or in flight; put() waits for room beyond that.",
  },
  {
    name: "linger.ms",
    type: "long",
    default: 1,
    min: 0,
    max: 604800000,
    importance: "low",
    group: "Connector",
    doc: "How long a partly filled batch waits for more records before it is sent (a full batch is sent at once).",
  },
  {
    name: "flush.timeout.ms",
    type: "long",
    default: 180000,
    min: 1000,
    importance: "low",
    group: "Connector",
    doc: "How long flush() waits for all buffered records to be written before failing.",
  },
  {
    name: "max.retries",
    type: "int",
    default: 5,
    min: 0,
    importance: "low",
    group: "Connector",
    doc: "Retries of a bulk request (or of its items) rejected with 429 or 5xx, or that could not connect.",
  },
  {
    name: "retry.backoff.ms",
    type: "long",
    default: 100,
    min: 0,
    importance: "low",
    group: "Connector",
    doc: "Base wait before the first retry; each further retry waits up to twice as long (with random jitter).",
  },
  {
    name: "connection.timeout.ms",
    type: "int",
    default: 1000,
    min: 0,
    importance: "low",
    group: "Connector",
    doc: "How long to wait for a connection to the server.",
  },
  {
    name: "read.timeout.ms",
    type: "int",
    default: 3000,
    min: 0,
    importance: "low",
    group: "Connector",
    doc: "How long to wait for the server's answer to a request.",
  },
  {
    name: SECURITY_PROTOCOL,
    type: "string",
    default: "PLAINTEXT",
    oneOf: ["PLAINTEXT", "SSL"],
    importance: "medium",
    group: "Security",
    doc: `SSL applies the ${SSL_PREFIX}ssl.* settings to https:// URLs; with PLAINTEXT they are ignored and an https:// URL is checked against the runtime's CA certificates. Server certificates are always verified; http:// URLs stay plain HTTP.`,
  },
  ...sslSettings,
  ...searchSinkUnsupportedSettings,
]);

/** The sink's settings, typed. */
export interface SearchSinkConfig {
  urls: string[];
  auth: { username: string; password: string } | undefined;
  keyIgnore: (topic: string) => boolean;
  schemaIgnore: (topic: string) => boolean;
  compactMapEntries: boolean;
  dropInvalidMessage: boolean;
  nullValues: NullValueBehavior;
  malformedDocuments: MalformedDocumentBehavior;
  writeMethod: WriteMethod;
  batchSize: number;
  bulkSizeBytes: number;
  maxInFlightRequests: number;
  maxBufferedRecords: number;
  lingerMs: number;
  flushTimeoutMs: number;
  maxRetries: number;
  retryBackoffMs: number;
  /** Connection plus read timeout: the deadline of one HTTP request. */
  requestTimeoutMs: number;
  https: SearchHttps;
}

/** The sink's settings, typed; throws ConfigError naming the setting of a key or trust store that cannot be read. */
export function searchSinkConfig(values: ParsedSettings): SearchSinkConfig {
  const username = values.optionalString("connection.username");
  const keyIgnoreTopics = new Set(values.list("topic.key.ignore"));
  const schemaIgnoreTopics = new Set(values.list("topic.schema.ignore"));
  const keyIgnore = values.boolean("key.ignore");
  const schemaIgnore = values.boolean("schema.ignore");
  return {
    urls: values.list("connection.url").map((u) => u.replace(/\/+$/, "")),
    auth: username === undefined ? undefined : { username, password: values.string("connection.password") },
    keyIgnore: (topic) => keyIgnore || keyIgnoreTopics.has(topic),
    schemaIgnore: (topic) => schemaIgnore || schemaIgnoreTopics.has(topic),
    compactMapEntries: values.boolean("compact.map.entries"),
    dropInvalidMessage: values.boolean("drop.invalid.message"),
    nullValues: values.string("behavior.on.null.values") as NullValueBehavior,
    malformedDocuments: values.string("behavior.on.malformed.documents") as MalformedDocumentBehavior,
    writeMethod: values.string("write.method") as WriteMethod,
    batchSize: values.int("batch.size"),
    bulkSizeBytes: values.int("bulk.size.bytes"),
    maxInFlightRequests: values.int("max.in.flight.requests"),
    maxBufferedRecords: values.int("max.buffered.records"),
    lingerMs: values.int("linger.ms"),
    flushTimeoutMs: values.int("flush.timeout.ms"),
    maxRetries: values.int("max.retries"),
    retryBackoffMs: values.int("retry.backoff.ms"),
    requestTimeoutMs: values.int("connection.timeout.ms") + values.int("read.timeout.ms"),
    https: searchHttps(
      Object.fromEntries(
        [SECURITY_PROTOCOL, ...sslSettings.map((s) => s.name)].map((name) => [name, values.string(name)]),
      ),
    ),
  };
}
