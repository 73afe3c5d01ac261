// Kafka Connect's Struct: a record of values laid out by a STRUCT schema. put() validates each value
// against its field, get() falls back to the field's default, the typed getters do not (as in Kafka).
import { valuesEqual } from "./equality.ts";
import { DataException } from "./errors.ts";
import { javaToString } from "./java-format.ts";
import { mapEntries, validateValue, type Field, type Schema, type Type } from "./schema.ts";
import { STRUCT_BRAND } from "./struct-brand.ts";
import { BigDecimal } from "../../../jvm/big-decimal.ts";

export class Struct {
  get [STRUCT_BRAND](): true {
    return true;
  }

  readonly schema: Schema;
  private readonly values: unknown[];

  constructor(schema: Schema) {
    if (schema.type !== "STRUCT") throw new DataException(`Not a struct schema: ${schema}`);
    this.schema = schema;
    const values = new Array<unknown>(schema.fields.length);
    for (let i = 0; i < values.length; i++) values[i] = null; // a loop: fill() costs twice as much here
    this.values = values;
  }

  /** The field's value, or its schema's default when the value is null. */
  get(field: string | Field): unknown {
    const f = typeof field === "string" ? this.lookupField(field) : field;
    const value = this.values[f.index];
    return value === null && f.schema.defaultValue !== null ? f.schema.defaultValue : value;
  }

  getWithoutDefault(field: string | Field): unknown {
    return this.values[(typeof field === "string" ? this.lookupField(field) : field).index];
  }

  getInt8(fieldName: string): number | null {
    return this.getCheckType(fieldName, "INT8") as number | null;
  }
  getInt16(fieldName: string): number | null {
    return this.getCheckType(fieldName, "INT16") as number | null;
  }
  getInt32(fieldName: string): number | null {
    return this.getCheckType(fieldName, "INT32") as number | null;
  }
  /** Always a bigint (an INT64 put as a number is widened). */
  getInt64(fieldName: string): bigint | null {
    const value = this.getCheckType(fieldName, "INT64") as number | bigint | null;
    return typeof value === "number" ? BigInt(value) : value;
  }
  getFloat32(fieldName: string): number | null {
    return this.getCheckType(fieldName, "FLOAT32") as number | null;
  }
  getFloat64(fieldName: string): number | null {
    return this.getCheckType(fieldName, "FLOAT64") as number | null;
  }
  getBoolean(fieldName: string): boolean | null {
    return this.getCheckType(fieldName, "BOOLEAN") as boolean | null;
  }
  getString(fieldName: string): string | null {
    return this.getCheckType(fieldName, "STRING") as string | null;
  }
  getBytes(fieldName: string): Uint8Array | null {
    return this.getCheckType(fieldName, "BYTES") as Uint8Array | null;
  }
  getArray<T = unknown>(fieldName: string): T[] | null {
    return this.getCheckType(fieldName, "ARRAY") as T[] | null;
  }
  /** Always a Map (a plain object put into a MAP field is copied into one). */
  getMap<K = unknown, V = unknown>(fieldName: string): Map<K, V> | null {
    const value = this.getCheckType(fieldName, "MAP") as Map<K, V> | Record<string, V> | null;
    return value === null || value instanceof Map ? value : (new Map(mapEntries(value)) as Map<K, V>);
  }
  getStruct(fieldName: string): Struct | null {
    return this.getCheckType(fieldName, "STRUCT") as Struct | null;
  }
  /** Not in Kafka's Struct; a typed getter for Decimal fields. */
  getDecimal(fieldName: string): BigDecimal | null {
    const value = this.getCheckType(fieldName, "BYTES");
    if (value !== null && !(value instanceof BigDecimal))
      throw new DataException(`Field '${fieldName}' is not a Decimal`);
    return value;
  }

  /** Validates `value` against the field's schema, then sets it. */
  put(field: string | Field, value: unknown): this {
    if (field === null || field === undefined) throw new DataException("field cannot be null.");
    const f = typeof field === "string" ? this.lookupField(field) : field;
    validateValue(f.schema, value, f.name);
    this.values[f.index] = value ?? null;
    return this;
  }

  /**
   * Throws DataException when a required field without a default is missing or a value is invalid.
   * Values only get here through put(), which checked them, so a value that cannot change since
   * (anything but a struct, array or map) is not checked again: a struct put into a struct costs a
   * look at its required fields' nulls, not a second check of every value.
   */
  validate(): void {
    const values = this.values;
    for (const field of this.schema.requiredFields)
      if (values[field.index] === null) validateValue(field.schema, null, field.name);
    for (const field of this.schema.mutableFields) {
      const value = values[field.index];
      if (value !== null) validateValue(field.schema, value, field.name);
    }
  }

  equals(other: unknown): boolean {
    if (this === other) return true;
    if (!(other instanceof Struct) || !this.schema.equals(other.schema)) return false;
    return this.values.length === other.values.length && this.values.every((v, i) => valuesEqual(v, other.values[i]));
  }

  /** `Struct{name=Alice,age=30}`: set fields only, values as Java prints them. */
  toString(): string {
    const parts: string[] = [];
    this.schema.fields.forEach((field, i) => {
      const value = this.values[i];
      if (value !== null) parts.push(`${field.name}=${javaToString(value, field.schema)}`);
    });
    return `Struct{${parts.join(",")}}`;
  }

  private lookupField(fieldName: string): Field {
    const field = this.schema.field(fieldName);
    if (field === null) throw new DataException(`${fieldName} is not a valid field name`);
    return field;
  }

  private getCheckType(fieldName: string, type: Type): unknown {
    const field = this.lookupField(fieldName);
    if (field.schema.type !== type) throw new DataException(`Field '${fieldName}' is not of type ${type}`);
    return this.values[field.index];
  }
}
