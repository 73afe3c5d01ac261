// Kafka Connect's Converter and HeaderConverter contracts: Connect data (schema + value) ↔ the bytes of
// a Kafka record key, value or header.
import type { SettingsDefinition } from "../../platform/settings.ts";
import type { Schema } from "./data/schema.ts";

export interface SchemaAndValue {
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** SchemaAndValue.NULL: what a tombstone (null bytes) converts to. */
export const SchemaAndValue = {
  NULL: Object.freeze({ schema: null, value: null }) as SchemaAndValue,
} as const;

/** A Kafka record header; converters may read or add them. */
export interface RecordHeader {
  key: string;
  value: Uint8Array | null;
}

/** Converter settings as given (from a connector or worker config, prefix removed). */
export type ConverterConfig = Readonly<Record<string, string | number | boolean>>;

export interface Converter {
  /** Called once before use; `isKey` tells whether this converts record keys or values. */
  configure(config: ConverterConfig, isKey: boolean): void;
  /**
   * null means a null record key/value (e.g. a tombstone). Kafka's interface is synchronous; here a
   * converter that needs I/O (a schema registry look-up) may return a promise, which the worker awaits.
   */
  fromConnectData(
    topic: string,
    schema: Schema | null,
    value: unknown,
    headers?: RecordHeader[],
  ): Uint8Array | null | Promise<Uint8Array | null>;
  toConnectData(
    topic: string,
    value: Uint8Array | null,
    headers?: readonly RecordHeader[],
  ): SchemaAndValue | Promise<SchemaAndValue>;
  /** The settings this converter understands (Kafka's Converter.config()), for validation and docs. */
  config?(): SettingsDefinition;
  close?(): void;
}

export interface HeaderConverter {
  configure(config: ConverterConfig, isKey: boolean): void;
  fromConnectHeader(topic: string, headerKey: string, schema: Schema | null, value: unknown): Uint8Array | null;
  toConnectHeader(topic: string, headerKey: string, value: Uint8Array | null): SchemaAndValue;
  config?(): SettingsDefinition;
  close?(): void;
}

/** Settings as the strings SettingsDefinition parses. */
export function settingStrings(config: ConverterConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]));
}
