// Kafka client security settings by Kafka's names (security.protocol, sasl.*, ssl.*), read once for
// both services: the registry's under `kafkastore.`, a connect worker's at its top level. PEM key
// material only (JKS and PKCS12 stores need converting; the error says how).
import { readFileSync } from "node:fs";
import { ConfigError } from "../common/settings.ts";

export interface ClientSecurity {
  ssl?: { ca?: string; cert?: string; key?: string; passphrase?: string; checkHostname: boolean };
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
  if (protocol === "SSL" || protocol === "SASL_SSL") {
    const pem = (inline: string, location: string, type: string) => {
      const text = get(inline);
      if (text) return text;
      const file = get(location);
      if (!file) return undefined;
      const storeType = (get(type) ?? "PEM").toUpperCase();
      if (storeType !== "PEM") throw new ConfigError(`${prefix}${type}`, storeType, "PEM (convert a JKS or PKCS12 store with keytool -importkeystore and openssl pkcs12 -nodes)");
      return readFileSync(file, "utf8");
    };
    const chain = pem("ssl.keystore.certificate.chain", "ssl.keystore.location", "ssl.keystore.type");
    out.ssl = {
      ca: pem("ssl.truststore.certificates", "ssl.truststore.location", "ssl.truststore.type"),
      cert: chain,
      key: get("ssl.keystore.key") ?? chain,
      passphrase: get("ssl.key.password"),
      // Kafka checks the broker's host name unless the algorithm is set empty.
      checkHostname: props[`${prefix}ssl.endpoint.identification.algorithm`]?.trim() !== "",
    };
  }
  return out.ssl || out.sasl ? out : undefined;
}

/** An option of a JAAS login module line: name="value" (quotes optional). */
function jaasOption(jaas: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s;]+))`).exec(jaas);
  return match ? (match[1] ?? match[2])!.replace(/\\(.)/g, "$1") : undefined;
}
