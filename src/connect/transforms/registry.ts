// Class names → factories for the built-in transforms and predicates: Kafka's real class names, the
// spec's placeholder packages (org.vendor.*, io.vendor.*, io.cdc.*), Confluent's and Debezium's names
// (ExtractNewRecordState, the outbox EventRouter, ByLogicalTableRouter / ToLogicalTopicRouter),
// and short aliases (`InsertField$Value`, `RegexRouter`).
import type { Predicate, Transformation } from "../api/transformation.ts";
import { Cast } from "./cast.ts";
import { ConditionFilter } from "./condition-filter.ts";
import { DropHeaders } from "./drop-headers.ts";
import { ExtractField } from "./extract-field.ts";
import { ExtractNewRecordState } from "./extract-new-record-state.ts";
import { Filter } from "./filter.ts";
import { Flatten } from "./flatten.ts";
import { HeaderFrom } from "./header-from.ts";
import { HoistField } from "./hoist-field.ts";
import { InsertField } from "./insert-field.ts";
import { InsertHeader } from "./insert-header.ts";
import { ByLogicalTableRouter, ToLogicalTopicRouter } from "./logical-table-router.ts";
import { MaskField } from "./mask-field.ts";
import { EventRouter } from "./outbox-event-router.ts";
import { HasHeaderKey, RecordIsTombstone, TopicNameMatches } from "./predicates.ts";
import { RegexRouter } from "./regex-router.ts";
import { ReplaceField } from "./replace-field.ts";
import { SetSchemaMetadata } from "./set-schema-metadata.ts";
import { TimestampConverter } from "./timestamp-converter.ts";
import { TimestampRouter } from "./timestamp-router.ts";
import type { Side } from "./key-or-value.ts";
import { ValueToKey } from "./value-to-key.ts";

type SidedTransform = new (side: Side) => Transformation;

/** Kafka transforms with $Key/$Value variants, by simple name. */
const SIDED: Record<string, SidedTransform> = {
  InsertField,
  MaskField,
  ReplaceField,
  ExtractField,
  HoistField,
  Cast,
  Flatten,
  TimestampConverter,
  SetSchemaMetadata,
  HeaderFrom,
};

/** Kafka transforms without variants, by simple name. */
const PLAIN: Record<string, () => Transformation> = {
  RegexRouter: () => new RegexRouter(),
  ValueToKey: () => new ValueToKey(),
  TimestampRouter: () => new TimestampRouter(),
  InsertHeader: () => new InsertHeader(),
  DropHeaders: () => new DropHeaders(),
  Filter: () => new Filter(),
};

function kafkaFamily(pkg: string): Record<string, () => Transformation> {
  const out: Record<string, () => Transformation> = {};
  const prefix = pkg === "" ? "" : `${pkg}.`;
  for (const [name, Ctor] of Object.entries(SIDED)) {
    out[`${prefix}${name}$Key`] = () => new Ctor("key");
    out[`${prefix}${name}$Value`] = () => new Ctor("value");
  }
  for (const [name, factory] of Object.entries(PLAIN)) out[`${prefix}${name}`] = factory;
  return out;
}

const conditionFilters = (pkg: string): Record<string, () => Transformation> => ({
  [`${pkg}Filter$Key`]: () => new ConditionFilter("key"),
  [`${pkg}Filter$Value`]: () => new ConditionFilter("value"),
});

export const BUILTIN_TRANSFORMS: Readonly<Record<string, () => Transformation>> = Object.freeze({
  ...kafkaFamily("org.apache.kafka.connect.transforms"),
  // The spec's placeholder package mirrors Kafka's.
  ...kafkaFamily("org.vendor.connect.transforms"),
  // Short aliases: `InsertField$Value`, `RegexRouter`, `Filter` (Kafka's drop-all Filter).
  ...kafkaFamily(""),
  ...conditionFilters("io.vendor.connect.transforms."),
  ...conditionFilters("io.confluent.connect.transforms."),
  ...conditionFilters(""),
  "io.debezium.transforms.ExtractNewRecordState": () => new ExtractNewRecordState(),
  "io.cdc.transforms.ExtractNewRecordState": () => new ExtractNewRecordState(),
  ExtractNewRecordState: () => new ExtractNewRecordState(),
  "io.debezium.transforms.outbox.EventRouter": () => new EventRouter(),
  "io.debezium.transforms.ByLogicalTableRouter": () => new ByLogicalTableRouter(),
  "io.debezium.transforms.ToLogicalTopicRouter": () => new ToLogicalTopicRouter(),
});

const PREDICATES: Record<string, () => Predicate> = {
  TopicNameMatches: () => new TopicNameMatches(),
  HasHeaderKey: () => new HasHeaderKey(),
  RecordIsTombstone: () => new RecordIsTombstone(),
};

export const BUILTIN_PREDICATES: Readonly<Record<string, () => Predicate>> = Object.freeze({
  ...Object.fromEntries(
    Object.entries(PREDICATES).map(([name, f]) => [`org.apache.kafka.connect.transforms.predicates.${name}`, f]),
  ),
  ...Object.fromEntries(
    Object.entries(PREDICATES).map(([name, f]) => [`org.vendor.connect.transforms.predicates.${name}`, f]),
  ),
  ...PREDICATES,
});
