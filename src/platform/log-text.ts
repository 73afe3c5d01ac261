// The readable form of a log line, for people at a terminal: the JSON line pino wrote, rendered as
// `time LEVEL logger message key=value …`. Pure, so the rendering is tested without a terminal.

const LEVEL_COLOURS: Record<string, number> = { trace: 90, debug: 36, info: 32, warn: 33, error: 31, fatal: 35 };
const SHOWN_APART = new Set(["time", "level", "logger", "msg", "err", "stack"]);

/** A value as `key=value` shows it: bare when it reads unambiguously, JSON otherwise. */
function fieldText(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** Renders one JSON log line; a line that is not a JSON object is returned as it is. */
export function renderTextLine(line: string, colour: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof entry !== "object" || entry === null) return line;
  const level = String(entry.level ?? "info");
  const paint = (code: number | undefined, text: string) => (colour && code ? `\u001b[${code}m${text}\u001b[0m` : text);
  const fields = Object.entries(entry)
    .filter(([key]) => !SHOWN_APART.has(key))
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const parts = [
    paint(90, String(entry.time ?? "")),
    paint(LEVEL_COLOURS[level], level.toUpperCase().padEnd(5)),
    entry.logger === undefined ? undefined : paint(1, `[${String(entry.logger)}]`),
    String(entry.msg ?? ""),
    fields.length > 0 ? paint(90, fields.join(" ")) : undefined,
  ];
  let text = parts.filter((p) => p !== undefined && p !== "").join(" ");
  // An error pino serialized (`err: Error`) shows its stack below the line, as a JVM log does.
  const err = entry.err;
  if (typeof err === "string") text += ` ${paint(31, `err=${fieldText(err)}`)}`;
  else if (err && typeof err === "object") {
    const { message, stack } = err as { message?: unknown; stack?: unknown };
    text += `\n${paint(31, String(stack ?? message ?? JSON.stringify(err)))}`;
  }
  return `${text}\n`;
}
