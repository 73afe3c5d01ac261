// Kafka Connect's data API for connector, transform and converter code.
export { BigDecimal, type RoundingMode } from "../../../jvm/big-decimal.ts";
export { valuesEqual } from "./equality.ts";
export { DataException, SchemaBuilderException } from "./errors.ts";
export { javaDoubleToString, javaFloatToString, javaToString, valuesToString } from "./java-format.ts";
export { ConnectDate, Decimal, LOGICAL_NAMES, Time, Timestamp } from "./logical.ts";
export { ConnectSchema, Field, Schema, SchemaBuilder, Type, copySchema, isPrimitive, typeName, validateValue, type SchemaDefinition } from "./schema.ts";
export { Struct } from "./struct.ts";
export { inferSchema } from "./values.ts";
