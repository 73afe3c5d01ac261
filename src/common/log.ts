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
