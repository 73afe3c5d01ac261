// Kafka's producer, consumer and admin client settings (ProducerConfig, ConsumerConfig,
// AdminClientConfig) by Kafka's names and defaults, read into what Sluice's Kafka client does with them.
// Security settings are client-security.ts's. Every other setting Kafka's clients know is declared: refused
// when honouring it would change the data, the security or the delivery, warned about when it only tunes
// Kafka's client. Values are checked as Kafka's ConfigDef checks them, with its messages.
import {
  ConfigError,
  ignored,
  noEffectWarning,
  refusalReason,
  refused,
  SettingsDefinition,
  unknownSettingWarning,
  unsupportedAll,
  type Setting,
  type SettingValue,
  type UnsupportedUse,
} from "../platform/settings.ts";

export type ClientKind = "producer" | "consumer" | "admin";
export type Compression = "none" | "gzip" | "snappy" | "lz4" | "zstd";
export type IsolationLevel = "read_committed" | "read_uncommitted";
export type OffsetReset = "earliest" | "latest" | "none";

/** What a client of each kind sets on its connections. */
export interface ConnectionTuning {
  /** client.id; undefined: Sluice's own (connect-task, …). */
  clientId?: string;
  /** request.timeout.ms as given; undefined: Sluice's 30 s (a write is retried by the source task). */
  requestTimeoutMs?: number;
}

export interface ProducerTuning extends ConnectionTuning {
  compression: Compression;
  /** acks: 1 (the leader) or -1 (all in-sync replicas). */
  acks: 1 | -1;
  idempotent: boolean;
  /** max.request.size: the most bytes one write request carries; a larger record is refused. */
  maxRequestSize: number;
  /** delivery.timeout.ms: how long a write is retried before the task fails (Connect's default: forever). */
  deliveryTimeoutMs: number;
  /** transaction.timeout.ms: how long a transaction may stay open before Kafka aborts it. */
  transactionTimeoutMs: number;
  /** buffer.memory: how far a source task's writes run ahead of their acknowledgements, in bytes. */
  bufferMemory?: number;
}

export interface ConsumerTuning extends ConnectionTuning {
  fetchMinBytes: number;
  fetchMaxBytes: number;
  fetchMaxWaitMs: number;
  maxPartitionFetchBytes: number;
  maxPollRecords: number;
  isolationLevel: IsolationLevel;
  autoOffsetReset: OffsetReset;
}

export type AdminTuning = ConnectionTuning;

/** A task's Kafka clients: Sluice's tasks have one client, which produces, consumes and administers. */
export interface ClientTuning {
  producer: ProducerTuning;
  consumer: ConsumerTuning;
  admin: AdminTuning;
}

/** A client setting's value refused with Kafka's own message (ConfigException's). */
export class ClientConfigError extends ConfigError {
  constructor(setting: string, value: string, message: string) {
    super(setting, value, message);
    this.name = "ClientConfigError";
    this.message = message;
  }
}

/** Integer.MAX_VALUE, Kafka Connect's producer request and delivery timeouts. */
const MAX_INT = 2147483647;

/**
 * What Kafka Connect's Worker sets on its task clients under the worker's and connector's settings
 * (Worker.baseProducerConfigs, baseConsumerConfigs): writes retried forever, one request in flight, and
 * a sink group with no committed offset starting at the beginning.
 */
export const CONNECT_TASK_DEFAULTS: Record<ClientKind, Record<string, string>> = {
  producer: {
    acks: "all",
    "max.in.flight.requests.per.connection": "1",
    "request.timeout.ms": String(MAX_INT),
    "delivery.timeout.ms": String(MAX_INT),
  },
  consumer: { "enable.auto.commit": "false", "auto.offset.reset": "earliest" },
  admin: {},
};

/** buffer.memory: Kafka's is 32 MiB of serialized records; Sluice counts the objects holding each record as well. */
export const BUFFER_MEMORY_DEFAULT = 16 * 1024 * 1024;

const LEVELS = "the Kafka client Sluice uses compresses at each codec's default level";
const CHECKED_CRCS =
  "Sluice checks the CRC-32C of every fetched record batch, as Kafka's consumer does by default (true); false does not turn that off";
const NO_GROUP =
  "Sluice's sink tasks read the partitions the worker gives them without joining a consumer group (they commit the group's offsets only)";
const CONNECTIONS = "it tunes the connections of Kafka's Java client; Sluice's client manages its own";
const METRICS = "Sluice's clients report no JMX or client metrics; the worker's metrics are served at /metrics";

const commonSettings: Setting[] = [
  {
    name: "client.id",
    type: "string",
    default: "",
    importance: "medium",
    doc: "The id the client gives the brokers (their logs and quotas).",
  },
  refused(
    "bootstrap.servers",
    "a task's clients connect to the worker's bootstrap.servers; another cluster per client is not supported",
    [""],
    { type: "list" },
  ),
  refused("security.providers", "Sluice's TLS and SASL have no Java security providers", [""]),
  ...unsupportedAll(
    "ignored",
    [
      "reconnect.backoff.ms",
      "reconnect.backoff.max.ms",
      "retry.backoff.ms",
      "retry.backoff.max.ms",
      "send.buffer.bytes",
      "receive.buffer.bytes",
      "connections.max.idle.ms",
      "socket.connection.setup.timeout.ms",
      "socket.connection.setup.timeout.max.ms",
      "client.dns.lookup",
      "metadata.recovery.strategy",
      "metadata.recovery.rebootstrap.trigger.ms",
      "metadata.max.idle.ms",
    ],
    CONNECTIONS,
  ),
  ...unsupportedAll(
    "ignored",
    [
      "enable.metrics.push",
      "metrics.sample.window.ms",
      "metrics.num.samples",
      "metrics.recording.level",
      "metric.reporters",
    ],
    METRICS,
  ),
];

const requestTimeout = (dflt: number): Setting => ({
  name: "request.timeout.ms",
  type: "int",
  default: dflt,
  min: 0,
  importance: "medium",
  doc: "How long the client waits for the answer to a request before it retries or fails it.",
});

const producerDeclared: Setting[] = [
  ...commonSettings,
  requestTimeout(30000),
  {
    name: "compression.type",
    type: "string",
    default: "none",
    oneOf: ["none", "gzip", "snappy", "lz4", "zstd"],
    importance: "high",
    doc: "The codec of the record batches the client writes.",
  },
  {
    name: "acks",
    type: "string",
    default: "all",
    oneOf: ["all", "-1", "0", "1"],
    importance: "low",
    doc: "The acknowledgement a write waits for: all (-1) in-sync replicas, or 1 the leader only. 0 is refused: Sluice needs each record's offset.",
  },
  {
    name: "enable.idempotence",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Writes that are retried are written once (needs acks=all and at most 5 requests in flight). Unset, it is on unless acks or max.in.flight.requests.per.connection rule it out.",
  },
  {
    name: "max.in.flight.requests.per.connection",
    type: "int",
    default: 5,
    min: 1,
    importance: "low",
    doc: "Checked as Kafka checks it; Sluice's clients keep one write in flight, within any limit.",
  },
  {
    name: "max.request.size",
    type: "int",
    default: 1048576,
    min: 0,
    importance: "medium",
    doc: "The most bytes one write request carries (Sluice cuts a write into requests of at most 512 KiB, or this if less); a record larger than this is refused.",
  },
  {
    name: "delivery.timeout.ms",
    type: "int",
    default: 120000,
    min: 0,
    importance: "medium",
    doc: "How long a write that fails is retried before the task fails (Kafka Connect's default: forever).",
  },
  refused("compression.gzip.level", LEVELS, ["-1", "6"], { type: "int", validate: gzipLevel }),
  refused("compression.lz4.level", LEVELS, ["9"], { type: "int", min: 1, max: 17 }),
  refused("compression.zstd.level", LEVELS, ["3"], { type: "int", min: -131072, max: 22 }),
  ignored(
    "linger.ms",
    "Sluice's clients write what they have at once (a task's poll, a registry's record), without waiting for more to batch",
    {
      type: "long",
      min: 0,
      default: 5,
    },
  ),
  ignored(
    "batch.size",
    "Sluice's clients write a partition's records of one write as one batch, of up to 512 KiB or max.request.size",
    { type: "int", min: 0, default: 16384 },
  ),
  {
    name: "buffer.memory",
    type: "long",
    default: BUFFER_MEMORY_DEFAULT,
    min: 0,
    importance: "high",
    doc: "How many bytes of records a source task keeps written and not yet acknowledged (keys, values, and 512 bytes a record for the objects holding it); its polling waits while they are at this bound. Sluice's default is 16 MiB.",
  },
  ignored(
    "max.block.ms",
    "a source task's polling waits for room under buffer.memory as long as the broker takes; a partition missing from the producer's metadata is waited for up to 10 s, then the write is retried as delivery.timeout.ms allows",
    {
      type: "long",
      min: 0,
    },
  ),
  ignored("retries", "a source task retries a write the broker refuses as retriable until delivery.timeout.ms", {
    type: "int",
    min: 0,
  }),
  ignored("metadata.max.age.ms", "the producer asks for a topic's metadata when it writes to it", {
    type: "long",
    min: 0,
  }),
  refused(
    "transactional.id",
    "the worker names an exactly-once source task's transactional producer <group.id>-<connector>-<task>, as Kafka Connect does; other producers are not transactional",
    [""],
  ),
  {
    name: "transaction.timeout.ms",
    type: "int",
    default: 60000,
    min: 1,
    importance: "low",
    doc: "How long an exactly-once source task's transaction may stay open before Kafka aborts it.",
  },
  refused(
    "transaction.two.phase.commit.enable",
    "Sluice's transactional producers do not take part in two-phase commits",
    ["false"],
  ),
  refused(
    "partitioner.class",
    "Sluice places records as Kafka's default partitioner does (murmur2 of the key); another partitioner is not supported",
    [""],
  ),
  refused("partitioner.ignore.keys", "Sluice places a keyed record by its key's hash", ["false"]),
  ...unsupportedAll(
    "ignored",
    ["partitioner.adaptive.partitioning.enable", "partitioner.availability.timeout.ms"],
    "Sluice places a record without a key round robin over the topic's partitions",
  ),
  refused("interceptor.classes", "Sluice runs no Java producer interceptors", [""]),
  refused("key.serializer", "a task's records are bytes the converters made", [
    "org.apache.kafka.common.serialization.ByteArraySerializer",
  ]),
  refused("value.serializer", "a task's records are bytes the converters made", [
    "org.apache.kafka.common.serialization.ByteArraySerializer",
  ]),
];

const consumerDeclared: Setting[] = [
  ...commonSettings,
  requestTimeout(30000),
  {
    name: "fetch.min.bytes",
    type: "int",
    default: 1,
    min: 0,
    importance: "high",
    doc: "The bytes a fetch waits for (up to fetch.max.wait.ms) before the broker answers.",
  },
  {
    name: "fetch.max.bytes",
    type: "int",
    default: 52428800,
    min: 0,
    importance: "medium",
    doc: "The most bytes a broker answers one fetch with (at least one record).",
  },
  {
    name: "fetch.max.wait.ms",
    type: "int",
    default: 500,
    min: 0,
    importance: "low",
    doc: "How long a fetch waits for fetch.min.bytes.",
  },
  {
    name: "max.partition.fetch.bytes",
    type: "int",
    default: 1048576,
    min: 0,
    importance: "high",
    doc: "The most bytes one fetch takes of a partition (at least one record).",
  },
  {
    name: "max.poll.records",
    type: "int",
    default: 500,
    min: 1,
    importance: "medium",
    doc: "The most records a sink task's put() is given at once.",
  },
  {
    name: "isolation.level",
    type: "string",
    default: "read_uncommitted",
    oneOf: ["read_committed", "read_uncommitted"],
    importance: "medium",
    doc: "read_committed: records of aborted transactions are skipped (transaction markers never reach a task either way).",
  },
  {
    name: "auto.offset.reset",
    type: "string",
    default: "latest",
    validate: offsetReset,
    importance: "medium",
    doc: "Where a sink group with no committed offset for a partition starts: earliest (Kafka Connect's default), latest, or none (the task fails).",
  },
  {
    name: "metadata.max.age.ms",
    type: "long",
    default: 300000,
    min: 0,
    importance: "low",
    doc: "How often a sink task asks for its topics' partitions again (new topics of topics.regex, added partitions).",
  },
  ignored("session.timeout.ms", NO_GROUP, { type: "int" }),
  ignored("heartbeat.interval.ms", NO_GROUP, { type: "int" }),
  ignored("max.poll.interval.ms", NO_GROUP, { type: "int", min: 1 }),
  ignored("partition.assignment.strategy", NO_GROUP, { type: "list" }),
  ignored("group.instance.id", NO_GROUP),
  ignored("group.protocol", NO_GROUP),
  ignored("group.remote.assignor", NO_GROUP),
  ignored("internal.leave.group.on.close", NO_GROUP),
  refused(
    "group.id",
    "a sink connector's group is connect-<connector name>, which the offsets endpoints read and alter",
    [""],
  ),
  refused(
    "enable.auto.commit",
    "a sink task commits what the connector flushed, never on a timer (Kafka Connect sets false)",
    ["false"],
  ),
  ignored("auto.commit.interval.ms", "a sink task commits what the connector flushed, never on a timer", {
    type: "int",
    min: 0,
  }),
  ignored("default.api.timeout.ms", "a sink task retries reads and commits the broker refuses as retriable", {
    type: "int",
    min: 0,
  }),
  ignored("client.rack", "Sluice reads from partition leaders only, never from a follower in the same rack"),
  ignored("check.crcs", CHECKED_CRCS, {}, ["true"]),
  ignored("exclude.internal.topics", "a sink task reads the topics its connector names"),
  ignored("allow.auto.create.topics", "a sink connector creates the topics it names that do not exist"),
  ignored("share.acknowledgement.mode", "Sluice's sink tasks are no share consumers"),
  ignored("internal.throw.on.fetch.stable.offset.unsupported", CONNECTIONS),
  refused("interceptor.classes", "Sluice runs no Java consumer interceptors", [""]),
  refused("key.deserializer", "a task's records are bytes the converters read", [
    "org.apache.kafka.common.serialization.ByteArrayDeserializer",
  ]),
  refused("value.deserializer", "a task's records are bytes the converters read", [
    "org.apache.kafka.common.serialization.ByteArrayDeserializer",
  ]),
];

const adminDeclared: Setting[] = [
  ...commonSettings,
  requestTimeout(30000),
  refused("bootstrap.controllers", "a task's clients connect to the worker's bootstrap.servers", [""], {
    type: "list",
  }),
  ignored("retries", "admin calls the broker refuses as retriable are retried until they succeed or the task stops", {
    type: "int",
    min: 0,
  }),
  ignored("default.api.timeout.ms", "admin calls are retried until they succeed or the task stops", {
    type: "int",
    min: 0,
  }),
  ignored("metadata.max.age.ms", "the admin client asks for metadata when it needs it", { type: "long", min: 0 }),
];

/** The client settings of each kind, by Kafka's names (security settings apart, which pass through). */
export const clientSettings: Record<ClientKind, SettingsDefinition> = {
  producer: new SettingsDefinition(producerDeclared, ["ssl.", "sasl.", "security."]),
  consumer: new SettingsDefinition(consumerDeclared, ["ssl.", "sasl.", "security."]),
  admin: new SettingsDefinition(adminDeclared, ["ssl.", "sasl.", "security."]),
};

function gzipLevel(value: SettingValue): string | undefined {
  const level = Number(value);
  return level === -1 || (level >= 1 && level <= 9) ? undefined : "Value must be between 1 and 9 or equal to -1";
}

function offsetReset(value: SettingValue): string | undefined {
  const text = String(value);
  if (["earliest", "latest", "none"].includes(text) || /^by_duration:/.test(text)) return undefined;
  return `Invalid value \`${text}\` for configuration auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or of the format 'by_duration:<PnDTnHnMn.nS.>'.`;
}

/** What a client's settings say: typed values by name, and what is wrong or without effect, by name. */
export interface ClientSettingsCheck {
  values: Map<string, SettingValue>;
  /** Settings given, by name, with Kafka's message for what is wrong with each. */
  problems: Map<string, string>;
  /** Settings given that have no effect in Sluice (a warning each). */
  noEffect: UnsupportedUse[];
  /** Settings given that no Kafka client of this kind knows (Kafka warns "supplied but isn't a known config"). */
  unknown: string[];
}

/** Checks a client's settings (unprefixed) as Kafka's client would; nothing is thrown. */
export function checkClientSettings(kind: ClientKind, props: Record<string, string>): ClientSettingsCheck {
  const def = clientSettings[kind];
  const values = new Map<string, SettingValue>();
  const problems = new Map<string, string>();
  const unknown: string[] = [];
  for (const [name, raw] of Object.entries(props)) {
    const setting = def.find(name);
    if (!setting) {
      if (!def.accepts(name)) unknown.push(name);
      continue;
    }
    const parsed = kafkaValue(setting, name, raw);
    if (typeof parsed === "object" && parsed !== null && "problem" in parsed) problems.set(name, parsed.problem);
    else values.set(setting.name, parsed);
  }
  const { refused: refusedUses, ignored: noEffect } = def.unsupportedIn(props);
  for (const use of refusedUses) {
    if (problems.has(use.name)) continue;
    problems.set(use.name, `Invalid value ${use.value} for configuration ${use.name}: ${refusalReason(use)}`);
  }
  if (kind === "producer") producerRules(props, values, problems);
  if (kind === "consumer") consumerRules(values, problems);
  for (const s of def.settings) if (!values.has(s.name)) values.set(s.name, s.default);
  return { values, problems, noEffect: noEffect.filter((u) => !problems.has(u.name)), unknown };
}

/** A value as Kafka's ConfigDef parses and validates it (case-sensitive, unlike Sluice's own settings). */
function kafkaValue(setting: Setting, name: string, raw: string): SettingValue | { problem: string } {
  const text = raw.trim();
  const invalid = (why: string) => ({ problem: `Invalid value ${text} for configuration ${name}: ${why}` });
  let value: SettingValue = text;
  switch (setting.type) {
    case "int":
    case "long":
      if (!/^-?\d+$/.test(text)) return invalid(`Not a number of type ${setting.type.toUpperCase()}`);
      value = Number(text);
      if (setting.type === "int" && (value > MAX_INT || value < -MAX_INT - 1))
        return invalid("Not a number of type INT");
      break;
    case "boolean":
      if (!/^(true|false)$/i.test(text)) return invalid("Expected value to be either true or false");
      value = text.toLowerCase() === "true";
      break;
    case "list":
      value = text === "" ? [] : text.split(",").map((v) => v.trim());
      break;
  }
  if (typeof value === "number") {
    if (setting.min !== undefined && value < setting.min) return invalid(`Value must be at least ${setting.min}`);
    if (setting.max !== undefined && value > setting.max) return invalid(`Value must be no more than ${setting.max}`);
  }
  if (setting.oneOf && !setting.oneOf.includes(text))
    return invalid(`String must be one of: ${setting.oneOf.join(", ")}`);
  const problem = setting.validate?.(value);
  if (problem) return invalid(problem);
  return value;
}

/** KafkaProducer's checks across settings (ProducerConfig.postProcessAndValidateIdempotenceConfigs, …). */
function producerRules(
  props: Record<string, string>,
  values: Map<string, SettingValue>,
  problems: Map<string, string>,
): void {
  if (problems.size > 0) return;
  const acks = values.get("acks") ?? "all";
  if (acks === "0") {
    problems.set(
      "acks",
      "Invalid value 0 for configuration acks: acks=0 is not supported by Sluice: a task needs the offset of each record it wrote (set all, -1 or 1, or remove it)",
    );
    return;
  }
  const inFlight = (values.get("max.in.flight.requests.per.connection") as number | undefined) ?? 5;
  if (values.get("enable.idempotence") === true) {
    if (inFlight > 5)
      problems.set(
        "max.in.flight.requests.per.connection",
        `To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is ${inFlight}.`,
      );
    else if (acks !== "all" && acks !== "-1")
      problems.set(
        "acks",
        "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.",
      );
  }
  // Kafka checks this only when delivery.timeout.ms is given (Kafka Connect always gives it).
  if ("delivery.timeout.ms" in props) {
    const linger = (values.get("linger.ms") as number | undefined) ?? 5;
    const request = (values.get("request.timeout.ms") as number | undefined) ?? 30000;
    if ((values.get("delivery.timeout.ms") as number) < Math.min(linger + request, MAX_INT))
      problems.set(
        "delivery.timeout.ms",
        "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms",
      );
  }
}

function consumerRules(values: Map<string, SettingValue>, problems: Map<string, string>): void {
  const reset = values.get("auto.offset.reset");
  if (typeof reset === "string" && reset.startsWith("by_duration:"))
    problems.set(
      "auto.offset.reset",
      `Invalid value ${reset} for configuration auto.offset.reset: by_duration is not supported by Sluice: a sink group with no committed offset starts at the earliest or latest offset, or fails with none (set earliest, latest or none, or remove it)`,
    );
}

/** The first problem of a check as the error Kafka's client would throw. */
function throwFirst(kind: ClientKind, check: ClientSettingsCheck, props: Record<string, string>): void {
  const [name, message] = [...check.problems][0] ?? [];
  if (name !== undefined) throw new ClientConfigError(`${kind}.${name}`, props[name] ?? "", message!);
}

const given = (props: Record<string, string>, name: string) => name in props;

/** A producer's tuning from its settings (unprefixed, Kafka Connect's task defaults under them). */
export function producerTuning(props: Record<string, string>): ProducerTuning {
  const check = checkClientSettings("producer", props);
  throwFirst("producer", check, props);
  const v = check.values;
  const acks = v.get("acks") === "1" ? 1 : -1;
  const inFlight = v.get("max.in.flight.requests.per.connection") as number;
  // As KafkaProducer: idempotence not asked for is dropped when other settings rule it out.
  const idempotent = given(props, "enable.idempotence")
    ? (v.get("enable.idempotence") as boolean)
    : acks === -1 && inFlight <= 5;
  return {
    ...connectionTuning(props, v),
    compression: v.get("compression.type") as Compression,
    acks,
    idempotent,
    maxRequestSize: v.get("max.request.size") as number,
    deliveryTimeoutMs: v.get("delivery.timeout.ms") as number,
    transactionTimeoutMs: v.get("transaction.timeout.ms") as number,
    bufferMemory: v.get("buffer.memory") as number,
  };
}

export function consumerTuning(props: Record<string, string>): ConsumerTuning {
  const check = checkClientSettings("consumer", props);
  throwFirst("consumer", check, props);
  const v = check.values;
  return {
    ...connectionTuning(props, v),
    fetchMinBytes: v.get("fetch.min.bytes") as number,
    fetchMaxBytes: v.get("fetch.max.bytes") as number,
    fetchMaxWaitMs: v.get("fetch.max.wait.ms") as number,
    maxPartitionFetchBytes: v.get("max.partition.fetch.bytes") as number,
    maxPollRecords: v.get("max.poll.records") as number,
    isolationLevel: v.get("isolation.level") as IsolationLevel,
    autoOffsetReset: v.get("auto.offset.reset") as OffsetReset,
  };
}

export function adminTuning(props: Record<string, string>): AdminTuning {
  const check = checkClientSettings("admin", props);
  throwFirst("admin", check, props);
  return connectionTuning(props, check.values);
}

/** client.id and request.timeout.ms when given: Connect's request timeout default (forever) stays Sluice's 30 s, retried. */
function connectionTuning(props: Record<string, string>, v: Map<string, SettingValue>): ConnectionTuning {
  const clientId = v.get("client.id") as string;
  const userTimeout = props["request.timeout.ms"] !== undefined && props["request.timeout.ms"] !== String(MAX_INT);
  return {
    ...(clientId ? { clientId } : {}),
    ...(userTimeout ? { requestTimeoutMs: v.get("request.timeout.ms") as number } : {}),
  };
}

/** The settings under `prefix`, by their names without it. */
export function withoutPrefix(props: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

/**
 * A Connect task's client settings of one kind, as Kafka Connect's Worker builds them: its defaults, the
 * worker's `producer.`/`consumer.`/`admin.` settings over them, the connector's `*.override.` ones over those.
 */
export function taskClientProps(
  kind: ClientKind,
  workerConfig: Record<string, string>,
  connectorConfig: Record<string, string> = {},
): Record<string, string> {
  return {
    ...CONNECT_TASK_DEFAULTS[kind],
    ...withoutPrefix(workerConfig, `${kind}.`),
    ...withoutPrefix(connectorConfig, `${kind}.override.`),
  };
}

/** A Connect task's client tuning (each kind's settings as taskClientProps gathers them). */
export function taskClientTuning(
  workerConfig: Record<string, string>,
  connectorConfig: Record<string, string> = {},
): ClientTuning {
  return {
    producer: producerTuning(taskClientProps("producer", workerConfig, connectorConfig)),
    consumer: consumerTuning(taskClientProps("consumer", workerConfig, connectorConfig)),
    admin: adminTuning(taskClientProps("admin", workerConfig, connectorConfig)),
  };
}

/**
 * The part of a tuning a Kafka client is built with (the rest a task passes with each read): two
 * connectors whose tunings have equal parts share a client.
 */
export function clientLevelTuning(tuning: ClientTuning): ClientTuning {
  const { clientId, requestTimeoutMs } = tuning.consumer;
  return { ...tuning, consumer: { ...DEFAULT_READS, clientId, requestTimeoutMs } };
}

/** Kafka's consumer defaults, with a new group starting at the earliest offsets as Kafka Connect's sinks do. */
export const DEFAULT_READS: ConsumerTuning = {
  fetchMinBytes: 1,
  fetchMaxBytes: 52428800,
  fetchMaxWaitMs: 500,
  maxPartitionFetchBytes: 1048576,
  maxPollRecords: 500,
  isolationLevel: "read_uncommitted",
  autoOffsetReset: "earliest",
};

/** What the registry decides itself of its store's clients, whatever `kafkastore.` says (Confluent's KafkaStore sets acks too). */
const STORE_OWN: Record<string, string> = {
  acks: "the registry's writes wait for every in-sync replica, as Confluent's KafkaStore sets acks=-1",
  "enable.idempotence": "the registry's writes are idempotent",
  "fetch.min.bytes": "the registry reads its topic with fetch settings of its own",
  "fetch.max.bytes": "the registry reads its topic with fetch settings of its own",
  "fetch.max.wait.ms": "the registry reads its topic with fetch settings of its own",
  "max.partition.fetch.bytes": "the registry reads its topic with fetch settings of its own",
  "max.poll.records": "the registry reads its topic with fetch settings of its own",
  "isolation.level": "the registry reads only committed records of its topic",
  "auto.offset.reset": "the registry reads its topic from the beginning",
  "metadata.max.age.ms": "the registry reads its one topic, whose partitions do not change",
};

const isSecurity = (name: string) => name === "security.protocol" || /^(sasl|ssl)\./.test(name);

/**
 * A schema registry's store clients from its `kafkastore.` client settings (unprefixed), which Confluent
 * gives to each of its store's clients (producer, reader, admin): a setting is checked by the clients that
 * know it, a bad or refused value throws (Kafka's message), and what has no effect is in `warnings`.
 */
export function storeClientSettings(
  props: Record<string, string>,
  prefix = "kafkastore.",
): { tuning: ClientTuning; warnings: string[] } {
  const kinds: ClientKind[] = ["producer", "consumer", "admin"];
  const warnings = new Map<string, string>();
  const byKind: Record<ClientKind, Record<string, string>> = { producer: {}, consumer: {}, admin: {} };
  for (const [name, value] of Object.entries(props)) {
    if (isSecurity(name)) continue;
    const knowing = kinds.filter((k) => clientSettings[k].find(name));
    if (knowing.length === 0) {
      const known = kinds.flatMap((k) => clientSettings[k].names().map((n) => `${prefix}${n}`));
      warnings.set(name, unknownSettingWarning(`${prefix}${name}`, known));
    } else if (STORE_OWN[name]) {
      warnings.set(name, `Setting ${prefix}${name} has no effect in Sluice: ${STORE_OWN[name]}`);
    } else for (const k of knowing) byKind[k][name] = value;
  }
  for (const kind of kinds) {
    const check = checkClientSettings(kind, byKind[kind]);
    const [name, message] = [...check.problems][0] ?? [];
    if (name !== undefined) throw new ClientConfigError(`${prefix}${name}`, byKind[kind][name] ?? "", message!);
    for (const use of check.noEffect) warnings.set(use.name, noEffectWarning({ ...use, name: `${prefix}${use.name}` }));
  }
  return {
    tuning: {
      producer: { ...producerTuning(byKind.producer), acks: -1, idempotent: true },
      consumer: consumerTuning(byKind.consumer),
      admin: adminTuning(byKind.admin),
    },
    warnings: [...warnings.values()],
  };
}
