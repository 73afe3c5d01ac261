// Sluice's single message transforms: Kafka's built-ins, the condition Filter, Debezium's
// ExtractNewRecordState, outbox EventRouter and ByLogicalTableRouter, Kafka's predicates, the class-name registry and the transformation chain.
export { Cast } from "./cast.ts";
export { ConditionFilter } from "./condition-filter.ts";
export { DropHeaders } from "./drop-headers.ts";
export { ExtractField } from "./extract-field.ts";
export { ExtractNewRecordState } from "./extract-new-record-state.ts";
export { Filter } from "./filter.ts";
export { Flatten } from "./flatten.ts";
export { HeaderFrom } from "./header-from.ts";
export { HoistField } from "./hoist-field.ts";
export { InsertField } from "./insert-field.ts";
export { InsertHeader } from "./insert-header.ts";
export { ByLogicalTableRouter, ToLogicalTopicRouter } from "./logical-table-router.ts";
export { MaskField } from "./mask-field.ts";
export { EventRouter } from "./outbox-event-router.ts";
export { HasHeaderKey, RecordIsTombstone, TopicNameMatches } from "./predicates.ts";
export { RegexRouter } from "./regex-router.ts";
export { ReplaceField } from "./replace-field.ts";
export { SetSchemaMetadata } from "./set-schema-metadata.ts";
export { TimestampConverter } from "./timestamp-converter.ts";
export { TimestampRouter } from "./timestamp-router.ts";
export { ValueToKey } from "./value-to-key.ts";
export { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from "./registry.ts";
export {
  TransformChain,
  validateTransforms,
  type ChainOptions,
  type PredicateFactory,
  type TransformFactory,
  type TransformStage,
} from "./chain.ts";
export { JsonPath, JsonPathError } from "./json-path.ts";
export { JavaPattern, JavaRegexError } from "../../jvm/java-regex.ts";
export { SimpleDateFormat } from "../../jvm/simple-date-format.ts";
export type { Side } from "./key-or-value.ts";
export { TransformConfigError } from "./transform-settings.ts";
