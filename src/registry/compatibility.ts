// Compatibility levels and how a candidate schema is checked against a subject's earlier versions.
// Format-agnostic: each format says what a reader cannot read of a writer (SchemaFormat.readProblems).
import type { Incompatibility, ParsedSchema, SchemaFormat } from "./formats/format.ts";

export const COMPATIBILITY_LEVELS = [
  "NONE",
  "BACKWARD",
  "BACKWARD_TRANSITIVE",
  "FORWARD",
  "FORWARD_TRANSITIVE",
  "FULL",
  "FULL_TRANSITIVE",
] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

export function parseLevel(value: unknown): CompatibilityLevel | undefined {
  if (typeof value !== "string") return undefined;
  const upper = value.trim().toUpperCase();
  return (COMPATIBILITY_LEVELS as readonly string[]).includes(upper) ? (upper as CompatibilityLevel) : undefined;
}

export interface PreviousVersion {
  version: number;
  schema: string;
  parsed: ParsedSchema;
}

/**
 * Checks `candidate` against live earlier versions (oldest first). Non-transitive levels look at the
 * latest only. Returns Confluent's message list: the problems with the first incompatible version
 * (newest first), then `{oldSchemaVersion: N}`, `{oldSchema: '…'}` and the level; empty = compatible.
 */
export function checkCompatibility(
  format: SchemaFormat,
  level: CompatibilityLevel,
  candidate: ParsedSchema,
  previous: PreviousVersion[],
): string[] {
  if (level === "NONE" || previous.length === 0) return [];
  const against = level.endsWith("_TRANSITIVE") ? [...previous].reverse() : previous.slice(-1);
  for (const old of against) {
    const problems: Incompatibility[] =
      old.parsed.schemaType !== candidate.schemaType
        ? [{ type: "TYPE_MISMATCH", path: "/", description: "Incompatible because of different schema type" }]
        : directionalProblems(format, level, candidate, old.parsed);
    if (problems.length > 0) {
      return [
        ...problems.map(formatProblem),
        `{oldSchemaVersion: ${old.version}}`,
        `{oldSchema: '${old.schema}'}`,
        `{validateFields: 'false', compatibility: '${level}'}`,
      ];
    }
  }
  return [];
}

function directionalProblems(
  format: SchemaFormat,
  level: CompatibilityLevel,
  candidate: ParsedSchema,
  old: ParsedSchema,
): Incompatibility[] {
  const backward = level.startsWith("BACKWARD") || level.startsWith("FULL");
  const forward = level.startsWith("FORWARD") || level.startsWith("FULL");
  // Confluent lists the forward problems before the backward ones.
  return [
    ...(forward ? format.readProblems(old, candidate, "writer") : []),
    ...(backward ? format.readProblems(candidate, old, "reader") : []),
  ];
}

/** Confluent's rendering of one difference; a checker failure is reported by its message alone. */
export function formatProblem(p: Incompatibility): string {
  if (p.type === "UNEXPECTED_EXCEPTION") return p.description;
  return `{errorType:'${p.type}', description:'${p.description}', additionalInfo:'${p.additionalInfo ?? ""}'}`;
}
