// Settings of Confluent's JDBC sink (JdbcSinkConfig, kafka-connect-jdbc 10.x) that Sluice's does not
// implement: refused where honouring them would change what is written or who can read it, a warning
// where they only tune Confluent's connector.
import { ignored, refused, type Setting } from "../../platform/settings.ts";

const IMPLEMENTED = ["url", "user", "username", "password", "attempts", "backoff.ms"];

export const jdbcSinkUnsupportedSettings: Setting[] = [
  refused("db.timezone.date", "Sluice writes DATE values without a time zone shift (Confluent's none)", ["none"]),
  refused("table.types", "Sluice writes to tables only, not to views or partitioned tables by their parent", ["TABLE"]),
  refused("trim.sensitive.log", "Sluice does not trim record values out of its SQL error logs", ["false"]),
  ignored("mssql.use.merge.holdlock", "Sluice writes to PostgreSQL and MySQL/MariaDB only; it has no SQL Server MERGE"),
  // Confluent passes `connection.<property>` to the JDBC driver (e.g. connection.sslmode=require).
  {
    ...refused(
      "connection.<driver property>",
      "Sluice passes no properties to a JDBC driver; give the connection's parameters (e.g. sslmode) in connection.url",
    ),
    pattern: new RegExp(`^connection\\.(?!(${IMPLEMENTED.map((n) => n.replaceAll(".", "\\.")).join("|")})$)`),
  },
];
