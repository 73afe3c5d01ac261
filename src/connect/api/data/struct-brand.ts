// Tells a Struct from other values without importing struct.ts: the modules Struct itself builds on
// (schema checks, equality, Java printing) need to recognise one, and importing the class would take
// them round in a circle.
import type { Struct } from "./struct.ts";

export const STRUCT_BRAND: unique symbol = Symbol.for("sluice.connect.Struct");

export function isStruct(value: unknown): value is Struct {
  return typeof value === "object" && value !== null && STRUCT_BRAND in value;
}
