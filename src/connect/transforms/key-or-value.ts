// The half of a record a $Key/$Value transform works on (Kafka's `$Key` / `$Value` inner classes), and
// what every such transform shares: its side, its settings, replace.null.with.default, and reading and
// replacing that half of a record.
import type { ParsedSettings, SettingsDefinition } from "../../platform/settings.ts";
import type { Schema } from "../api/data/index.ts";
import { newRecord, type ConnectHeader, type ConnectRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { REPLACE_NULL_WITH_DEFAULT, parseSettings } from "./transform-settings.ts";

/** Which part of the record a transform operates on (Kafka's `$Key` / `$Value` inner classes). */
export type Side = "key" | "value";

export abstract class KeyOrValueTransformation<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  protected abstract readonly definition: SettingsDefinition;
  /** replace.null.with.default, for the transforms that declare it (Struct.get rather than getWithoutDefault). */
  protected replaceNullWithDefault = true;

  constructor(readonly side: Side = "value") {}

  config(): SettingsDefinition {
    return this.definition;
  }

  configure(config: Record<string, string>): void {
    const settings = parseSettings(this.definition, config);
    if (this.definition.accepts(REPLACE_NULL_WITH_DEFAULT.name))
      this.replaceNullWithDefault = settings.boolean(REPLACE_NULL_WITH_DEFAULT.name);
    this.configureWith(settings, config);
  }

  /** Reads the transform's own settings; `config` is what was given, for telling an absent setting from an empty one. */
  protected abstract configureWith(settings: ParsedSettings, config: Record<string, string>): void;

  abstract apply(record: R): R | null | Promise<R | null>;

  protected operatingSchema(record: R): Schema | null {
    return this.side === "key" ? record.keySchema : record.valueSchema;
  }

  protected operatingValue(record: R): unknown {
    return (this.side === "key" ? record.key : record.value) ?? null;
  }

  /** A copy of `record` whose key or value (and its schema) is replaced; everything else is kept. */
  protected withOperating(record: R, schema: Schema | null, value: unknown, headers?: readonly ConnectHeader[]): R {
    const changes: Partial<ConnectRecord> =
      this.side === "key" ? { keySchema: schema, key: value } : { valueSchema: schema, value };
    return newRecord(record, headers === undefined ? changes : { ...changes, headers });
  }
}
