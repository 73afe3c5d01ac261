// Kafka client security settings by Kafka's names (security.protocol, sasl.*, ssl.*), read once for
// both services: the registry's under `kafkastore.`, a connect worker's at its top level.
import { ConfigError } from "../platform/settings.ts";
import { clientTls, type ClientTls } from "../platform/tls.ts";

export interface ClientSecurity {
  ssl?: ClientTls;
  sasl?: { mechanism: "plain" | "scram-sha-256" | "scram-sha-512"; username: string; password: string };
}

const PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"];
const MECHANISMS: Record<string, "plain" | "scram-sha-256" | "scram-sha-512"> = { PLAIN: "plain", "SCRAM-SHA-256": "scram-sha-256", "SCRAM-SHA-512": "scram-sha-512" };

/** The security of a client from its settings; undefined for PLAINTEXT. */
export function clientSecurity(props: Record<string, string>, prefix = ""): ClientSecurity | undefined {
  const get = (name: string) => props[prefix + name]?.trim() || undefined;
  const protocol = (get("security.protocol") ?? "PLAINTEXT").toUpperCase();
  if (!PROTOCOLS.includes(protocol)) throw new ConfigError(`${prefix}security.protocol`, protocol, PROTOCOLS.join(", "));
  const out: ClientSecurity = {};
  if (protocol.startsWith("SASL_")) {
    const mechanism = (get("sasl.mechanism") ?? "GSSAPI").toUpperCase();
    if (!MECHANISMS[mechanism]) throw new ConfigError(`${prefix}sasl.mechanism`, mechanism, Object.keys(MECHANISMS).join(", "));
    const jaas = get("sasl.jaas.config");
    if (!jaas) throw new ConfigError(`${prefix}sasl.jaas.config`, "", 'a login module with username="…" password="…"');
    const [username, password] = [jaasOption(jaas, "username"), jaasOption(jaas, "password")];
    if (username === undefined || password === undefined) throw new ConfigError(`${prefix}sasl.jaas.config`, "(not shown: it holds a password)", 'username="…" and password="…" options');
    out.sasl = { mechanism: MECHANISMS[mechanism]!, username, password };
  }
  if (protocol === "SSL" || protocol === "SASL_SSL") out.ssl = clientTls(props, prefix);
  return out.ssl || out.sasl ? out : undefined;
}

/** An option of a JAAS login module line: name="value" (quotes optional). */
function jaasOption(jaas: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s;]+))`).exec(jaas);
  return match ? (match[1] ?? match[2])!.replace(/\\(.)/g, "$1") : undefined;
}
