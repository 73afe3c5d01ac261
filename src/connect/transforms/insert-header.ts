// InsertHeader: adds one header to every record; `value.literal` is parsed as Kafka's
// Values.parseString does (so "42" is an INT8 header, "true" a BOOLEAN, "null" a null header).
import { SettingsDefinition } from "../../platform/settings.ts";
import type { ConnectRecord } from "../api/records.ts";
import { newRecord } from "../api/records.ts";
import type { Transformation } from "../api/transformation.ts";
import { parseSettings } from "./transform-settings.ts";
import { parseString, type SchemaAndValue } from "./values.ts";

const DEFINITION = new SettingsDefinition([
  { name: "header", type: "string", required: true, importance: "high", doc: "The name of the header." },
  {
    name: "value.literal",
    type: "string",
    required: true,
    importance: "high",
    doc: "The literal value that is to be set as the header value on all records.",
  },
]);

export class InsertHeader<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  private header = "";
  private literal: SchemaAndValue | null = null;

  config(): SettingsDefinition {
    return DEFINITION;
  }

  configure(config: Record<string, string>): void {
    const s = parseSettings(DEFINITION, config);
    this.header = s.string("header");
    this.literal = parseString(s.string("value.literal"));
  }

  apply(record: R): R {
    const header = { key: this.header, schema: this.literal?.schema ?? null, value: this.literal?.value ?? null };
    return newRecord(record, { headers: [...record.headers, header] });
  }
}
