// ReplaceField$Key / ReplaceField$Value: keeps a field iff it is not excluded and (include is empty or
// it is included), then renames (`renames=old:new,...`). `whitelist`/`blacklist` are the pre-4.0 names
// of include/exclude; when both spellings are given the new one wins, as Kafka's translation does.
import { SettingsDefinition } from "../../platform/settings.ts";
import { SchemaBuilder, Struct, type Schema } from "../api/data/index.ts";
import type { ConnectRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { operatingSchema, operatingValue, withOperating, type Side } from "./key-or-value.ts";
import { requireMap, requireStruct } from "./requirements.ts";
import { SchemaCache } from "./schema-cache.ts";
import { mapLike } from "./schemaless-map.ts";
import { copySchemaBasics } from "./struct-copy.ts";
import { REPLACE_NULL_WITH_DEFAULT, invalidConfig, javaSplit, parseSettings } from "./transform-settings.ts";

/** Parses `old:new` pairs; Kafka's validator message for a malformed one. */
export function parseRenameMappings(mappings: readonly string[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const mapping of mappings) {
    const parts = javaSplit(mapping, ":");
    if (parts.length !== 2) throw invalidConfig("renames", mappings, `Invalid rename mapping: ${mapping}`);
    renames.set(parts[0], parts[1]);
  }
  return renames;
}

const DEFINITION = new SettingsDefinition([
  { name: "exclude", aliases: ["blacklist"], type: "list", default: [], importance: "medium", doc: "Fields to exclude. This takes precedence over the fields to include." },
  { name: "include", aliases: ["whitelist"], type: "list", default: [], importance: "medium", doc: "Fields to include. If specified, only these fields will be used." },
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

export class ReplaceField<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private exclude: ReadonlySet<string> = new Set();
  private include: ReadonlySet<string> = new Set();
  private renames: ReadonlyMap<string, string> = new Map();
  private reverseRenames: ReadonlyMap<string, string> = new Map();
  private replaceNullWithDefault = true;
  private readonly schemaCache = new SchemaCache();

  constructor(readonly side: Side = "value") {}

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const effective = { ...config };
    if (effective.include !== undefined) delete effective.whitelist;
    if (effective.exclude !== undefined) delete effective.blacklist;
    const s = parseSettings(DEFINITION, effective);
    this.exclude = new Set(s.list("exclude"));
    this.include = new Set(s.list("include"));
    this.renames = parseRenameMappings(s.list("renames"));
    this.reverseRenames = new Map([...this.renames].map(([from, to]) => [to, from]));
    this.replaceNullWithDefault = s.boolean("replace.null.with.default");
  }

  apply(record: R): R {
    const value = operatingValue(record, this.side);
    if (value === null) return record;
    return operatingSchema(record, this.side) === null ? this.applySchemaless(record, value) : this.applyWithSchema(record, value);
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
    return withOperating(record, this.side, null, mapLike(updated, value));
  }

  private applyWithSchema(record: R, raw: unknown): R {
    const value = requireStruct(raw, PURPOSE);
    const schema = this.schemaCache.getOrCompute(value.schema, (s) => this.updatedSchema(s));
    const updated = new Struct(schema);
    for (const f of schema.fields) {
      const source = this.reverseRenames.get(f.name) ?? f.name;
      updated.put(f.name, this.replaceNullWithDefault ? value.get(source) : value.getWithoutDefault(source));
    }
    return withOperating(record, this.side, schema, updated);
  }

  private updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const f of schema.fields) if (this.keep(f.name)) builder.field(this.renamed(f.name), f.schema);
    return builder.build();
  }
}
