import { expect, test } from "bun:test";
import { ConnectException } from "#src/connect/api/connector.ts";
import { explained, withKnownFix } from "#src/connectors/postgres-cdc/known-fixes.ts";

test.each([
  ["must be superuser to create FOR ALL TABLES publication", "set publication.autocreate.mode=filtered"],
  ["permission denied to start WAL sender", "ALTER ROLE <database.user> REPLICATION;"],
  ["permission denied for database postgres", "GRANT CREATE ON DATABASE postgres TO <database.user>;"],
  ["must be superuser or replication role to start walsender", "needs the REPLICATION attribute"],
  ['logical decoding requires "wal_level" >= "logical"', "set wal_level = logical in postgresql.conf"],
  ["logical decoding requires wal_level >= logical", "and restart PostgreSQL"],
  ['replication slot "orders_slot" is active for PID 4242', "another client (PID 4242) is reading slot orders_slot"],
])("%s → the fix", (message, fix) => {
  expect(withKnownFix(message)).toStartWith(message);
  expect(withKnownFix(message)).toContain(fix);
});

test("other messages stay as they are; an explained error keeps the original as its cause", () => {
  expect(withKnownFix('relation "x" does not exist')).toBe('relation "x" does not exist');
  const plain = new Error("other");
  expect(explained(plain)).toBe(plain);
  const refused = new Error("must be superuser to create FOR ALL TABLES publication");
  const said = explained(refused) as ConnectException;
  expect(said).toBeInstanceOf(ConnectException);
  expect(said.cause).toBe(refused);
});
