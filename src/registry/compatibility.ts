// Compatibility levels and how a candidate schema is checked against a subject's earlier versions.
// Format-agnostic: each format says what a reader cannot read of a writer (SchemaFormat.readProblems).
import type { Incompatibility, ParsedSchema, SchemaFormat } from "../schema/format.ts";

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
  try {
    return checkBothWays(format, forward, backward, candidate, old);
  } catch (err) {
    // A checker that cannot decide (Confluent fails there too) makes the schema incompatible, not a 500.
    const reason = err instanceof Error ? err.message : String(err);
    return [
      {
        type: "UNEXPECTED_EXCEPTION",
        path: "/",
        description: reason,
        rendered: `Unexpected exception during compatibility check: ${reason}`,
      },
    ];
  }
}

function checkBothWays(
  format: SchemaFormat,
  forward: boolean,
  backward: boolean,
  candidate: ParsedSchema,
  old: ParsedSchema,
): Incompatibility[] {
  // Confluent lists the forward problems before the backward ones.
  return [
    ...(forward ? format.readProblems(old, candidate, "writer") : []),
    ...(backward ? format.readProblems(candidate, old, "reader") : []),
  ];
}

/** Confluent's rendering of one difference (a format may render its own). */
export function formatProblem(p: Incompatibility): string {
  return (
    p.rendered ?? `{errorType:'${p.type}', description:'${p.description}', additionalInfo:'${p.additionalInfo ?? ""}'}`
  );
}
