// The per-item results of a Bulk API response and what each means for the record behind it.

export interface BulkItemResult {
  status: number;
  error?: { type: string; reason: string };
}

/**
 * - written: done (a delete of a missing document included);
 * - outdated: the index already holds this document at the same or a newer Kafka offset (external
 *   versioning), as after a re-delivery;
 * - retry: the server was busy or failed (429, 5xx), worth sending again;
 * - malformed: the document does not fit the index (handled by behavior.on.malformed.documents);
 * - failed: anything else, which fails the task.
 */
export type ItemOutcome = "written" | "outdated" | "retry" | "malformed" | "failed";

// The error types Confluent's sink treats as a bad document rather than a bad server.
const MALFORMED_TYPES = new Set([
  "strict_dynamic_mapping_exception",
  "mapper_parsing_exception",
  "illegal_argument_exception",
  "action_request_validation_exception",
  "document_parsing_exception",
]);

export function itemOutcome(item: BulkItemResult): ItemOutcome {
  if (item.error === undefined) return "written";
  if (item.error.type === "version_conflict_engine_exception") return "outdated";
  if (item.status === 429 || item.status >= 500) return "retry";
  return MALFORMED_TYPES.has(item.error.type) ? "malformed" : "failed";
}

/** The items of a bulk response body, in request order; throws when the body is not one. */
export function bulkItems(body: unknown, expected: number): BulkItemResult[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length !== expected)
    throw new Error(`unexpected bulk response: ${JSON.stringify(body).slice(0, 500)}`);
  return items.map((entry: unknown) => {
    // Each item is {"<action>": {...}} with the action that was requested.
    const result = Object.values(entry as Record<string, unknown>)[0] as { status?: unknown; error?: unknown };
    const status = typeof result?.status === "number" ? result.status : 0;
    const error = result?.error;
    if (error === undefined || error === null) return { status };
    if (typeof error === "string") return { status, error: { type: "unknown", reason: error } };
    const { type, reason } = error as { type?: unknown; reason?: unknown };
    return { status, error: { type: String(type ?? "unknown"), reason: String(reason ?? "") } };
  });
}
