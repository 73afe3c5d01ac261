// Settings every Confluent *Data mapping shares (Confluent's AbstractDataConfig), and decimal.format,
// which Kafka's JsonConverter and Confluent's JsonSchemaData both declare; each declared once.
import type { Setting } from "../../platform/settings.ts";

export const decimalFormat: Setting = {
  name: "decimal.format",
  type: "string",
  default: "BASE64",
  oneOf: ["BASE64", "NUMERIC"],
  importance: "low",
  doc: "Controls which format this converter will serialize decimals in. This value is case insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
};

export const flattenSingletonUnions: Setting = {
  name: "flatten.singleton.unions",
  type: "boolean",
  default: true,
  importance: "low",
  doc: "Whether to flatten singleton unions",
};

export const commonDataSettings: Setting[] = [
  {
    name: "generalized.sum.type.support",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Toggle for enabling/disabling generalized sum type support: interoperability of enum/union with other schema formats",
  },
  {
    name: "ignore.default.for.nullables",
    type: "boolean",
    default: false,
    importance: "medium",
    doc: "Whether to ignore the default for nullable fields when the value is null",
  },
  // Confluent's key really is "schemas.cache.config" (AbstractDataConfig.SCHEMAS_CACHE_SIZE_CONFIG).
  {
    name: "schemas.cache.config",
    type: "int",
    default: 1000,
    importance: "low",
    doc: "Size of the converted schemas cache",
  },
];
