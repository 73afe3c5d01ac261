// One structured logger for the whole process. Level settable at run time (setLogLevel), e.g. from
// settings or an admin endpoint; secrets are never passed to it.
import pino from "pino";

export type Logger = pino.Logger;
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

// Written straight to stdout, line by line: what a process logged is there even after a kill -9.
const root: Logger = pino(
  {
    level: process.env.SLUICE_LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "warn" : "info"),
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  pino.destination({ dest: 1, sync: true }),
);

export function logger(name: string): Logger {
  return root.child({ logger: name });
}

export function setLogLevel(level: LogLevel): void {
  root.level = level;
}

/**
 * Process warnings go to the log instead of raw stderr. kafkajs' request queue arms a timer for
 * `-1 - Date.now()` ms whenever it is not throttled (TimeoutNegativeWarning, harmless: Node and Bun
 * run it after 1 ms), so that one is kept at debug.
 */
export function logProcessWarnings(): void {
  const log = logger("process");
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name === "TimeoutNegativeWarning") log.debug({ warning: warning.name }, warning.message);
    else log.warn({ warning: warning.name }, warning.message);
  });
}
