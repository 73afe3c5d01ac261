// JDBC connection URLs as users already write them for Confluent's connector, read into what our
// native clients need. The subprotocol picks the dialect; `user`/`password` URL parameters are honoured
// as the JDBC drivers do (the connection.* settings win over them).
import type { PostgresTls } from "../../platform/postgres-tls.ts";
import { ConfigError } from "../../platform/settings.ts";
import { connectorJTls, mariadbTls, pgjdbcTls, UrlParameters, type MySqlTls } from "./connection-tls.ts";

export type DialectName = "postgresql" | "mysql";

export interface ConnectionTarget {
  dialect: DialectName;
  host: string;
  port: number;
  database: string;
  user: string | undefined;
  password: string | undefined;
  /** TLS as the URL's driver reads its parameters: the PostgreSQL JDBC driver's, Connector/J's or MariaDB's. */
  postgresTls?: PostgresTls;
  mysqlTls?: MySqlTls;
}

const SUBPROTOCOLS: Record<string, { dialect: DialectName; port: number }> = {
  postgresql: { dialect: "postgresql", port: 5432 },
  mysql: { dialect: "mysql", port: 3306 },
  mariadb: { dialect: "mysql", port: 3306 },
};

const JDBC_URL = /^jdbc:([a-z]+):\/\/([^/?;]*)(?:\/([^?;]*))?(?:[?;](.*))?$/i;

export function parseConnectionUrl(url: string): ConnectionTarget {
  const m = JDBC_URL.exec(url.trim());
  const sub = m ? SUBPROTOCOLS[m[1]!.toLowerCase()] : undefined;
  if (!m || !sub)
    throw new ConfigError(
      "connection.url",
      url,
      "a jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb:// URL is required",
    );
  // Several hosts (failover lists) are accepted by the drivers; we connect to the first.
  const hostPort = m[2]!.split(",")[0]!;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
  const [host, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : [hostPort.replace(/:\d+$/, ""), /:(\d+)$/.exec(hostPort)?.[1]];
  const params = new URLSearchParams((m[4] ?? "").replaceAll(";", "&"));
  const parameters = new UrlParameters(params);
  const subprotocol = m[1]!.toLowerCase();
  return {
    dialect: sub.dialect,
    host: host || "localhost",
    port: port ? Number(port) : sub.port,
    database: decodeURIComponent(m[3] ?? ""),
    user: params.get("user") ?? undefined,
    password: params.get("password") ?? undefined,
    ...(subprotocol === "postgresql"
      ? { postgresTls: pgjdbcTls(parameters) }
      : { mysqlTls: subprotocol === "mariadb" ? mariadbTls(parameters) : connectorJTls(parameters) }),
  };
}
