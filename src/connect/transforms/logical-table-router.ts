// Debezium's ByLogicalTableRouter (and ToLogicalTopicRouter, its 3.x name): sends the change events of
// several physical tables (shards) to one topic. When `topic.regex` matches the whole topic, the topic
// becomes its `topic.replacement`; the key and value schemas are renamed after the new topic
// (`<topic>.Key`, `<topic>.Value` for before/after, `<topic>.Envelope`, adjusted by
// schema.name.adjustment.mode). So that keys of different shards stay apart, the key gets a string
// field `key.field.name` holding the old topic, or what `key.field.regex` / `key.field.replacement`
// make of it (`key.enforce.uniqueness=false` adds nothing). Tombstones and records that are not change
// events (heartbeats, schema changes) get the new topic and key only. A regex result that is empty
// leaves the record as it is. Regexes are Java's, matched on a regex thread once per topic.
//
// ByLogicalTableRouter's key field defaults to `__dbz__physicalTableIdentifier` and it reads
// `logical.table.cache.size` when `logical.destination.cache.size` is not set, as Debezium keeps them
// for configs written before the rename; ToLogicalTopicRouter's is `__dbz__sourceIdentifier`.
import { logger } from "../../platform/log.ts";
import { SettingsDefinition, type Setting } from "../../platform/settings.ts";
import { type Schema, SchemaBuilder, Struct } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { JavaPattern, JavaReplacement } from "../../jvm/java-regex.ts";
import { PerInput } from "../../jvm/regex-budget.ts";
import { regexProblem } from "./regex-router.ts";
import { requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import {
  SCHEMA_NAME_ADJUSTMENT_MODES,
  SchemaNameAdjuster,
  type SchemaNameAdjustmentMode,
} from "./schema-name-adjuster.ts";
import { configProblem, invalidConfig, parseSettings } from "./transform-settings.ts";

const log = logger("transforms");

function settings(legacy: boolean): SettingsDefinition {
  const declared: Setting[] = [
    {
      name: "topic.regex",
      type: "string",
      importance: "low",
      doc: "A Java regex matched against the whole topic name; the records of matching topics are routed. Required.",
      validate: regexProblem,
    },
    {
      name: "topic.replacement",
      type: "string",
      importance: "low",
      doc: "The new topic name, with the groups of topic.regex ($1, ${name}). Required.",
    },
    {
      name: "key.enforce.uniqueness",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "Add a field naming the source (the old topic, or key.field.replacement's result) to each key, so rows of different tables with the same key stay apart. false when the keys are unique across the tables.",
    },
    {
      name: "key.field.regex",
      type: "string",
      importance: "low",
      doc: "A Java regex matched against the old topic name to make the key field's value with key.field.replacement (the old topic when it does not match).",
      validate: regexProblem,
    },
    {
      name: "key.field.name",
      type: "string",
      default: legacy ? "__dbz__physicalTableIdentifier" : "__dbz__sourceIdentifier",
      importance: "low",
      doc: "The name of the key field that tells the sources apart.",
    },
    {
      name: "key.field.replacement",
      type: "string",
      importance: "low",
      doc: "The key field's value, with the groups of key.field.regex; required when key.field.regex is set.",
    },
    {
      name: "schema.name.adjustment.mode",
      type: "string",
      default: "none",
      oneOf: [...SCHEMA_NAME_ADJUSTMENT_MODES],
      importance: "low",
      doc: "How the schema names made from the new topic are adjusted: none, avro (invalid characters become _) or avro_unicode (they become _uXXXX).",
    },
    {
      name: "logical.destination.cache.size",
      type: "int",
      default: 16,
      min: 0,
      importance: "low",
      doc: "How many derived schemas and topic names are kept.",
    },
  ];
  if (legacy)
    declared.push({
      name: "logical.table.cache.size",
      type: "int",
      min: 0,
      importance: "low",
      doc: "The former name of logical.destination.cache.size, read when that is not set.",
    });
  return new SettingsDefinition(declared);
}

const LEGACY = settings(true);
const CURRENT = settings(false);

export class ToLogicalTopicRouter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private topicRegex: JavaPattern | null = null;
  private topicReplacement: JavaReplacement | null = null;
  private keyFieldRegex: JavaPattern | null = null;
  private keyFieldReplacement: JavaReplacement | null = null;
  private keyFieldName = "";
  private enforceUniqueness = true;
  private adjuster = new SchemaNameAdjuster("none");
  private keySchemas = new SchemaCache();
  private envelopeSchemas = new SchemaCache();
  /** Each old topic's new one (null: not routed). */
  private readonly topics = new PerInput<string | null>();
  /** Each old topic's key field value. */
  private readonly sources = new PerInput<string>();

  constructor(private readonly legacy = false) {}

  config(): SettingsDefinition {
    return this.legacy ? LEGACY : CURRENT;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(this.config(), config);
    // Debezium's ConfigDef gives these no default (so Kafka Connect lists them as optional) and its
    // configure requires them.
    for (const name of ["topic.regex", "topic.replacement"])
      if (s.string(name).trim() === "")
        throw configProblem(name, `The '${name}' value is invalid: A value is required`);
    this.topicRegex = JavaPattern.compile(s.string("topic.regex"));
    this.topicReplacement = compileReplacement("topic.replacement", s.string("topic.replacement"), this.topicRegex);
    const keyRegex = s.optionalString("key.field.regex")?.trim();
    const keyReplacement = s.optionalString("key.field.replacement")?.trim();
    if (keyRegex !== undefined && keyRegex !== "" && (keyReplacement === undefined || keyReplacement === ""))
      throw configProblem(
        "key.field.replacement",
        "key.field.replacement must be non-empty if key.field.regex is set.",
      );
    if (keyRegex !== undefined && keyRegex !== "") {
      this.keyFieldRegex = JavaPattern.compile(s.string("key.field.regex"));
      this.keyFieldReplacement = compileReplacement(
        "key.field.replacement",
        s.string("key.field.replacement"),
        this.keyFieldRegex,
      );
    } else {
      this.keyFieldRegex = this.keyFieldReplacement = null;
    }
    this.keyFieldName = s.string("key.field.name");
    this.enforceUniqueness = s.boolean("key.enforce.uniqueness");
    this.adjuster = new SchemaNameAdjuster(
      s.string("schema.name.adjustment.mode").toLowerCase() as SchemaNameAdjustmentMode,
    );
    const legacySize = this.legacy && config["logical.destination.cache.size"] === undefined;
    const size =
      legacySize && config["logical.table.cache.size"] !== undefined
        ? s.int("logical.table.cache.size")
        : s.int("logical.destination.cache.size");
    this.keySchemas = new SchemaCache(size);
    this.envelopeSchemas = new SchemaCache(size);
  }

  apply(record: R): R | Promise<R> {
    const topic = this.topics.get(record.topic, () => this.newTopic(record.topic));
    const source =
      !this.enforceUniqueness || this.keyFieldRegex === null
        ? record.topic
        : this.sources.get(record.topic, () => this.sourceOf(record.topic));
    if (topic instanceof Promise || source instanceof Promise)
      return Promise.all([topic, source]).then(([t, s]) => this.route(record, t, s));
    return this.route(record, topic, source);
  }

  private async newTopic(topic: string): Promise<string | null> {
    const { topicRegex, topicReplacement } = this;
    if (topicRegex === null || topicReplacement === null) return null;
    if (!(await topicRegex.matchesWithin("topic.regex", topic))) return null;
    return topicRegex.replaceFirstWithin("topic.regex", topic, topicReplacement);
  }

  private async sourceOf(topic: string): Promise<string> {
    const { keyFieldRegex, keyFieldReplacement } = this;
    if (keyFieldRegex === null || keyFieldReplacement === null) return topic;
    if (!(await keyFieldRegex.matchesWithin("key.field.regex", topic))) return topic;
    return keyFieldRegex.replaceFirstWithin("key.field.regex", topic, keyFieldReplacement);
  }

  private route(record: R, topic: string | null, source: string): R {
    if (topic === null) return record;
    if (topic === "") {
      log.warn("Routing regex returned an empty topic name, propagating original record");
      return record;
    }
    let keySchema: Schema | null = null;
    let key: Struct | null = null;
    if (record.key !== null && record.key !== undefined) {
      const oldKey = requireStruct(record.key, "Updating schema");
      keySchema = this.keySchemas.getOrCompute(oldKey.schema, (s) => this.keySchema(s, topic));
      key = new Struct(keySchema);
      for (const f of oldKey.schema.fields) key.put(f.name, oldKey.getWithoutDefault(f.name));
      if (this.enforceUniqueness) key.put(this.keyFieldName, source);
    }
    const isEnvelope = record.valueSchema?.name?.endsWith(".Envelope") ?? false;
    if (record.value === null || record.value === undefined || !isEnvelope)
      return newRecord(record, { topic, keySchema, key });
    const oldEnvelope = requireStruct(record.value, "Updating schema");
    const envelopeSchema = this.envelopeSchemas.getOrCompute(oldEnvelope.schema, (s) => this.envelopeSchema(s, topic));
    const rowSchema = (envelopeSchema.field("before") ?? envelopeSchema.field("after"))?.schema ?? null;
    const envelope = new Struct(envelopeSchema);
    for (const f of oldEnvelope.schema.fields) {
      let value = oldEnvelope.get(f);
      if (rowSchema !== null && (f.name === "before" || f.name === "after") && value !== null)
        value = rowOf(rowSchema, requireStruct(value, "Updating schema"));
      envelope.put(f.name, value);
    }
    return newRecord(record, { topic, keySchema, key, valueSchema: envelopeSchema, value: envelope });
  }

  private keySchema(old: Schema, topic: string): Schema {
    const builder = copyExcludingName(old, SchemaBuilder.struct(), true).name(this.adjuster.adjust(`${topic}.Key`));
    if (this.enforceUniqueness) builder.field(this.keyFieldName, SchemaBuilder.string().build());
    return builder.build();
  }

  private envelopeSchema(old: Schema, topic: string): Schema {
    const rowField = old.field("before") ?? old.field("after");
    const rowSchema =
      rowField === null
        ? null
        : copyExcludingName(rowField.schema, SchemaBuilder.struct(), true)
            .name(this.adjuster.adjust(`${topic}.Value`))
            .build();
    const builder = copyExcludingName(old, SchemaBuilder.struct(), false);
    for (const f of old.fields)
      builder.field(f.name, rowSchema !== null && (f.name === "before" || f.name === "after") ? rowSchema : f.schema);
    return builder.name(this.adjuster.adjust(`${topic}.Envelope`)).build();
  }
}

/** Debezium's ByLogicalTableRouter: ToLogicalTopicRouter with the settings' former defaults. */
export class ByLogicalTableRouter<R extends ConnectRecord = ConnectRecord> extends ToLogicalTopicRouter<R> {
  constructor() {
    super(true);
  }
}

function compileReplacement(setting: string, replacement: string, regex: JavaPattern): JavaReplacement {
  try {
    return JavaReplacement.compile(replacement, regex);
  } catch (e) {
    throw invalidConfig(setting, replacement, (e as Error).message);
  }
}

/** Version, doc, parameters, optionality and (when asked) the fields; not the name. */
function copyExcludingName(source: Schema, builder: SchemaBuilder, withFields: boolean): SchemaBuilder {
  if (source.version !== null) builder.version(source.version);
  if (source.doc !== null) builder.doc(source.doc);
  if (source.parameters !== null) builder.parameters(source.parameters);
  if (source.optional) builder.optional();
  if (withFields) for (const f of source.fields) builder.field(f.name, f.schema);
  return builder;
}

function rowOf(schema: Schema, old: Struct): Struct {
  const row = new Struct(schema);
  for (const f of old.schema.fields) row.put(f.name, old.getWithoutDefault(f.name));
  return row;
}
