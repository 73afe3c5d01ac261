// ReplaceField$Key / ReplaceField$Value: keeps a field iff it is not excluded and (include is empty or
// it is included), then renames (`renames=old:new,...`). `whitelist`/`blacklist` are the pre-4.0 names
// of include/exclude; when both spellings are given the new one wins, as Kafka's translation does.
import { javaSplit } from "../../jvm/java-strings.ts";
import { SettingsDefinition, type ParsedSettings } from "../../platform/settings.ts";
import { SchemaBuilder, type Schema } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import { KeyOrValueTransformation } from "./key-or-value.ts";
import { requireMap, requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapLike } from "./schemaless-map.ts";
import { copySchemaBasics, structFromFields } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, invalidConfig } from "./transform-settings.ts";

/** Parses `old:new` pairs; Kafka's validator message for a malformed one. */
function parseRenameMappings(mappings: readonly string[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const mapping of mappings) {
    const parts = javaSplit(mapping, ":");
    if (parts.length !== 2) throw invalidConfig("renames", mappings, `Invalid rename mapping: ${mapping}`);
    renames.set(parts[0], parts[1]);
  }
  return renames;
}

const DEFINITION = new SettingsDefinition([
  {
    name: "exclude",
    aliases: ["blacklist"],
    type: "list",
    default: [],
    importance: "medium",
    doc: "Fields to exclude. This takes precedence over the fields to include.",
  },
  {
    name: "include",
    aliases: ["whitelist"],
    type: "list",
    default: [],
    importance: "medium",
    doc: "Fields to include. If specified, only these fields will be used.",
  },
  {
    name: "renames",
    type: "list",
    default: [],
    importance: "medium",
    doc: "Field rename mappings, a list of colon-delimited pairs, e.g. `foo:bar,abc:xyz`.",
    validate: (value) => {
      parseRenameMappings(Array.isArray(value) ? value : []);
      return undefined;
    },
  },
  REPLACE_NULL_WITH_DEFAULT,
]);

const PURPOSE = "field replacement";

export class ReplaceField<R extends ConnectRecord = ConnectRecord> extends KeyOrValueTransformation<R> {
  private exclude: ReadonlySet<string> = new Set();
  private include: ReadonlySet<string> = new Set();
  private renames: ReadonlyMap<string, string> = new Map();
  private reverseRenames: ReadonlyMap<string, string> = new Map();
  private readonly schemaCache = new SchemaCache();

  protected readonly definition = DEFINITION;

  override configure(config: Record<string, string>): void {
    const effective = { ...config };
    if (effective.include !== undefined) delete effective.whitelist;
    if (effective.exclude !== undefined) delete effective.blacklist;
    super.configure(effective);
  }

  protected configureWith(s: ParsedSettings): void {
    this.exclude = new Set(s.list("exclude"));
    this.include = new Set(s.list("include"));
    this.renames = parseRenameMappings(s.list("renames"));
    this.reverseRenames = new Map([...this.renames].map(([from, to]) => [to, from]));
  }

  apply(record: R): R {
    const value = this.operatingValue(record);
    if (value === null) return record;
    return this.operatingSchema(record) === null
      ? this.applySchemaless(record, value)
      : this.applyWithSchema(record, value);
  }

  private keep(name: string): boolean {
    return !this.exclude.has(name) && (this.include.size === 0 || this.include.has(name));
  }

  private renamed(name: string): string {
    return this.renames.get(name) ?? name;
  }

  private applySchemaless(record: R, raw: unknown): R {
    const value = requireMap(raw, PURPOSE);
    const updated = new Map<unknown, unknown>();
    for (const [k, v] of value instanceof Map ? value : Object.entries(value)) {
      const name = String(k);
      if (this.keep(name)) updated.set(this.renamed(name), v);
    }
    return this.withOperating(record, null, mapLike(updated, value));
  }

  private applyWithSchema(record: R, raw: unknown): R {
    const value = requireStruct(raw, PURPOSE);
    const schema = this.schemaCache.getOrCompute(value.schema, (s) => this.updatedSchema(s));
    const updated = structFromFields(
      schema,
      value,
      this.replaceNullWithDefault,
      (f) => this.reverseRenames.get(f.name) ?? f.name,
    );
    return this.withOperating(record, schema, updated);
  }

  private updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const f of schema.fields) if (this.keep(f.name)) builder.field(this.renamed(f.name), f.schema);
    return builder.build();
  }
}
