// Kafka Connect's data API for connector, transform and converter code.
export { BigDecimal, type RoundingMode } from "../../../jvm/big-decimal.ts";
export { valuesEqual } from "./equality.ts";
export { DataException, SchemaBuilderException } from "./errors.ts";
export {
  isPlainObject,
  javaClassName,
  javaDoubleToString,
  javaFloatToString,
  javaToString,
  valuesToString,
} from "./java-format.ts";
export {
  ConnectDate,
  Decimal,
  LOGICAL_NAMES,
  Time,
  Timestamp,
  fromTwosComplement,
  twosComplementBytes,
} from "./logical.ts";
export {
  ConnectSchema,
  Field,
  Schema,
  SchemaBuilder,
  Type,
  acceptsPlain,
  copySchema,
  isPrimitive,
  mapEntries,
  typeName,
  validateValue,
  type SchemaDefinition,
} from "./schema.ts";
export { Struct } from "./struct.ts";
export { inferSchema } from "./values.ts";
