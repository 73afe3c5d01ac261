// What the log says about a plugin module that could not be loaded: Bun reports a module that does not
// build as a BuildMessage (several as an AggregateError) carrying the position, which a plugin author
// needs as file:line:column to find the mistake.

interface Position {
  file: string;
  line: number;
  column: number;
}

function positionOf(err: unknown): Position | undefined {
  const position = (err as { position?: Partial<Position> | null } | null)?.position;
  return position &&
    typeof position.file === "string" &&
    typeof position.line === "number" &&
    typeof position.column === "number"
    ? (position as Position)
    : undefined;
}

function oneError(err: unknown): string {
  // A BuildMessage is no Error, but has a message too.
  const message = typeof err === "object" && err !== null && "message" in err ? String(err.message) : String(err);
  const at = positionOf(err);
  return at ? `${at.file}:${at.line}:${at.column}: ${message}` : message;
}

/** Each build error as `file:line:column: message`, one a line; other errors by their message. */
export function loadErrorText(err: unknown): string {
  const errors = err instanceof AggregateError ? err.errors : [err];
  return errors.map(oneError).join("\n");
}
