// Query and path values as Confluent's JAX-RS resources read them.
import { errors } from "../errors.ts";

export type Query = Record<string, string | undefined>;

/** JAX-RS boolean query params: "true" in any case is true, anything else false. */
export const flag = (q: Query, name: string) => q[name]?.toLowerCase() === "true";

/** JAX-RS int params: a non-integer makes the resource not match (404). */
export function int(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw errors.notFound();
  return Number(value);
}

export function schemaId(value: string): number {
  const id = int(value, -1);
  if (id > 2 ** 31 - 1) throw errors.notFound();
  return id;
}

export const listOptions = (q: Query) => ({
  deleted: flag(q, "deleted"),
  deletedOnly: flag(q, "deletedOnly"),
  subjectPrefix: q.subjectPrefix,
  offset: int(q.offset, 0),
  limit: int(q.limit, -1),
});
