// PostgreSQL's refusals that a CDC set-up meets on its first day, each with the fix: the server's own
// words name what is wrong, not what to change.
import { ConnectException } from "../../connect/api/connector.ts";

const FIXES: { pattern: RegExp; fix: (match: RegExpMatchArray) => string }[] = [
  {
    pattern: /must be superuser to create FOR ALL TABLES publication/,
    fix: () =>
      "set publication.autocreate.mode=filtered (a publication of the captured tables only, which their owner may create), or have a superuser create the publication named by publication.name",
  },
  {
    // CREATE PUBLICATION needs CREATE on the database.
    pattern: /permission denied for database "?([^"\s]+)"?/,
    fix: (m) =>
      `the connector's user needs CREATE on database ${m[1]} to create its publication: GRANT CREATE ON DATABASE ${m[1]} TO <database.user>; or create the publication beforehand and set publication.autocreate.mode=disabled`,
  },
  {
    // PostgreSQL 16+ ("permission denied to start WAL sender") and older ("must be superuser or replication role").
    pattern: /permission denied to start WAL sender|must be superuser or replication role to start walsender/,
    fix: () =>
      "the connector's user needs the REPLICATION attribute: ALTER ROLE <database.user> REPLICATION; (as a superuser)",
  },
  {
    pattern: /logical decoding requires "?wal_level"? >= "?logical"?/,
    fix: () =>
      "set wal_level = logical in postgresql.conf (or ALTER SYSTEM SET wal_level = logical) and restart PostgreSQL",
  },
  {
    pattern: /replication slot "([^"]+)" is active for PID (\d+)/,
    fix: (m) =>
      `another client (PID ${m[2]}) is reading slot ${m[1]}: stop it (another connector or task with this slot.name?), or give this connector a slot.name of its own`,
  },
];

/** The server's message with the known fix appended, or as it is. */
export function withKnownFix(message: string): string {
  for (const { pattern, fix } of FIXES) {
    const match = message.match(pattern);
    if (match) return `${message} (${fix(match)})`;
  }
  return message;
}

/** An error whose message has a known fix, as a ConnectException that says it (the error as its cause); else the error. */
export function explained(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const message = withKnownFix(err.message);
  return message === err.message ? err : new ConnectException(message, err);
}
