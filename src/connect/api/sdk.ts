// What a plugin module gets to build connectors with. A plugin file cannot import Sluice's modules
// (the binary has no module paths), so its default export receives this SDK:
//   export default (sdk) => [class MySource extends sdk.SourceConnector { ... }, ...]
import { ignored, refused, SettingsDefinition } from "../../platform/settings.ts";
import {
  Schema,
  SchemaBuilder,
  Struct,
  Decimal,
  ConnectDate,
  Time,
  Timestamp,
  DataException,
  javaToString,
} from "./data/index.ts";
import {
  ConnectException,
  RetriableException,
  SinkConnector,
  SinkTask,
  SourceConnector,
  SourceTask,
} from "./connector.ts";
import { newRecord, sourceRecord } from "./records.ts";
import { VERSION } from "../../platform/version.ts";

export const pluginSdk = {
  VERSION,
  SettingsDefinition,
  /**
   * Declarations of settings a plugin's original has and it does not implement: `refused(name, why,
   * harmless?)` fails a config that sets one (unless to a harmless value), `ignored(name, why)` warns.
   */
  refused,
  ignored,
  Schema,
  SchemaBuilder,
  Struct,
  Decimal,
  Date: ConnectDate,
  Time,
  Timestamp,
  DataException,
  /** A value as Kafka Connect prints it (Struct{…}, lists, maps), e.g. for sinks writing text. */
  javaToString,
  ConnectException,
  RetriableException,
  SourceConnector,
  SinkConnector,
  SourceTask,
  SinkTask,
  sourceRecord,
  newRecord,
} as const;

export type PluginSdk = typeof pluginSdk;
