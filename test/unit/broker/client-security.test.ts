// Kafka client security settings → what the Kafka client gets, with Kafka's setting names.
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientSecurity } from "../../../src/broker/client-security.ts";
import { ConfigError } from "../../../src/platform/settings.ts";
import { certificateAuthority, pkcs12 } from "../../fixtures/certificates.ts";

const ca = certificateAuthority("Test CA");
const client = ca.issue("sluice-client", "client");

test("PLAINTEXT (the default) needs nothing", () => {
  expect(clientSecurity({})).toBeUndefined();
  expect(clientSecurity({ "security.protocol": "plaintext" })).toBeUndefined();
});

test("SASL: the mechanism and the JAAS login module's username and password, under a prefix", () => {
  const props = {
    "kafkastore.security.protocol": "SASL_SSL",
    "kafkastore.sasl.mechanism": "SCRAM-SHA-512",
    "kafkastore.sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="sr" password="p\\"w;d";',
    "kafkastore.ssl.truststore.certificates": ca.cert,
  };
  const security = clientSecurity(props, "kafkastore.");
  expect(security?.sasl).toEqual({ mechanism: "scram-sha-512", username: "sr", password: 'p"w;d' });
  expect(security?.ssl?.ca?.map((c) => c.trim())).toEqual([ca.cert.trim()]);
  expect(security?.ssl?.checkHostname).toBe(true);
  expect(clientSecurity({ "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": "x required username=u password=p;" })?.sasl).toEqual({ mechanism: "plain", username: "u", password: "p" });
});

test("SSL from PEM or PKCS12 stores; host name checks off only when the algorithm is set empty", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-stores-"));
  writeFileSync(join(dir, "ca.pem"), ca.cert);
  writeFileSync(join(dir, "client.pem"), client.key + client.cert);
  writeFileSync(join(dir, "client.p12"), pkcs12(client, [ca.cert], "store-pw"));
  const pem = clientSecurity({ "security.protocol": "SSL", "ssl.truststore.location": join(dir, "ca.pem"), "ssl.truststore.type": "PEM", "ssl.keystore.location": join(dir, "client.pem"), "ssl.keystore.type": "PEM", "ssl.endpoint.identification.algorithm": "" })?.ssl;
  expect(pem?.ca?.map((c) => c.trim())).toEqual([ca.cert.trim()]);
  expect(pem).toMatchObject({ cert: expect.stringContaining(client.cert.trim()), checkHostname: false });
  expect(pem?.key).toContain("PRIVATE KEY");
  const p12 = clientSecurity({ "security.protocol": "SSL", "ssl.truststore.location": join(dir, "ca.pem"), "ssl.truststore.type": "PEM", "ssl.keystore.location": join(dir, "client.p12"), "ssl.keystore.type": "PKCS12", "ssl.keystore.password": "store-pw" })?.ssl;
  expect(p12?.checkHostname).toBe(true);
  expect(p12?.key).toContain("PRIVATE KEY");
});

test("what cannot be used is refused with the setting's name, never the password", () => {
  const problem = (props: Record<string, string>) => {
    try {
      clientSecurity(props);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error("expected a ConfigError");
  };
  expect(problem({ "security.protocol": "TLS" })).toContain("security.protocol");
  expect(problem({ "security.protocol": "SASL_PLAINTEXT" })).toContain("sasl.mechanism"); // GSSAPI, Kafka's default
  expect(problem({ "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN" })).toContain("sasl.jaas.config");
  const noUser = problem({ "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": 'x required password="secret-pw";' });
  expect(noUser).toContain("sasl.jaas.config");
  expect(noUser).not.toContain("secret-pw");
  expect(problem({ "security.protocol": "SSL", "ssl.truststore.location": "/nonexistent.p12", "ssl.truststore.type": "PKCS12" })).toContain("ssl.truststore.location");
});
