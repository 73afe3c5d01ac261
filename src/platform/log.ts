// One structured logger for the whole process. Level and format settable at run time (setLogLevel,
// setLogFormat), e.g. from settings or an admin endpoint; secrets are never passed to it.
import pino from "pino";
import { renderTextLine } from "./log-text.ts";
import type { ParsedSettings, Setting } from "./settings.ts";

export type Logger = pino.Logger;
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
export type LogFormat = "json" | "text";
const LOG_FORMATS: LogFormat[] = ["json", "text"];

/** Readable lines for a person at a terminal, JSON lines for whatever collects the output (and tests). */
const envFormat = LOG_FORMATS.find((f) => f === process.env.SLUICE_LOG_FORMAT?.toLowerCase());
let format: LogFormat = envFormat ?? (process.stdout.isTTY && process.env.NODE_ENV !== "test" ? "text" : "json");
const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

// Written straight to stdout, line by line: what a process logged is there even after a kill -9. pino's
// own destination does the writing (it retries a full pipe; tests capture it by spying on fs.writeSync).
const stdout = pino.destination({ dest: 1, sync: true });
// Whoever read the output has gone (a closed pipe): the process carries on without its log.
stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
});
const root: Logger = pino(
  {
    level: process.env.SLUICE_LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "warn" : "info"),
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Level names, not pino's numbers: `"level":"warn"` is what a person and a log query look for.
    formatters: { level: (label) => ({ level: label }) },
  },
  { write: (line: string) => stdout.write(format === "json" ? line : renderTextLine(line, colour)) },
);

export function logger(name: string): Logger {
  return root.child({ logger: name });
}

export function setLogLevel(level: LogLevel): void {
  root.level = level;
}

export function setLogFormat(next: LogFormat): void {
  format = next;
}

/** The level and format in force, for a thread to log as this one does. */
export function currentLogSettings(): { level: LogLevel; format: LogFormat } {
  return { level: root.level as LogLevel, format };
}

const LEVELS: LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** The log settings every command takes (registry and worker files, SCHEMA_REGISTRY_/CONNECT_ variables). */
export const logSettings: Setting[] = [
  {
    name: "log.level",
    type: "string",
    oneOf: LEVELS,
    importance: "low",
    doc: "Sluice: the log level. Default: the SLUICE_LOG_LEVEL variable, else info.",
  },
  {
    name: "log.format",
    type: "string",
    oneOf: LOG_FORMATS,
    importance: "low",
    doc: "Sluice: `text` (readable lines, coloured at a terminal) or `json` (one JSON object per line). Default: the SLUICE_LOG_FORMAT variable, else text at a terminal and json otherwise.",
  },
];

/** Applies the log settings that were given; what was not given keeps its default. */
export function applyLogSettings(settings: ParsedSettings): void {
  const level = settings.optionalString("log.level");
  if (level) setLogLevel(level.toLowerCase() as LogLevel);
  const given = settings.optionalString("log.format");
  if (given) setLogFormat(given.toLowerCase() as LogFormat);
}

/**
 * Process warnings go to the log instead of raw stderr. A TimeoutNegativeWarning (a library arming a
 * timer for a negative time, which Node and Bun run after 1 ms; kafkajs did on every request) is kept
 * at debug.
 */
export function logProcessWarnings(): void {
  const log = logger("process");
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name === "TimeoutNegativeWarning") log.debug({ warning: warning.name }, warning.message);
    else log.warn({ warning: warning.name }, warning.message);
  });
}
