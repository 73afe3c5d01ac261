// Kafka client security settings → what the Kafka client gets, with Kafka's setting names.
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientSecurity } from "../../../src/broker/client-security.ts";
import { ConfigError } from "../../../src/common/settings.ts";

test("PLAINTEXT (the default) needs nothing", () => {
  expect(clientSecurity({})).toBeUndefined();
  expect(clientSecurity({ "security.protocol": "plaintext" })).toBeUndefined();
});

test("SASL: the mechanism and the JAAS login module's username and password, under a prefix", () => {
  const props = {
    "kafkastore.security.protocol": "SASL_SSL",
    "kafkastore.sasl.mechanism": "SCRAM-SHA-512",
    "kafkastore.sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="sr" password="p\\"w;d";',
    "kafkastore.ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----",
  };
  expect(clientSecurity(props, "kafkastore.")).toEqual({
    sasl: { mechanism: "scram-sha-512", username: "sr", password: 'p"w;d' },
    ssl: { ca: props["kafkastore.ssl.truststore.certificates"], cert: undefined, key: undefined, passphrase: undefined, checkHostname: true },
  });
  expect(clientSecurity({ "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": "x required username=u password=p;" })?.sasl).toEqual({ mechanism: "plain", username: "u", password: "p" });
});

test("SSL from PEM files; host name checks off only when the algorithm is set empty", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-pem-"));
  writeFileSync(join(dir, "ca.pem"), "CA");
  writeFileSync(join(dir, "client.pem"), "KEY+CHAIN");
  const ssl = clientSecurity({ "security.protocol": "SSL", "ssl.truststore.location": join(dir, "ca.pem"), "ssl.truststore.type": "PEM", "ssl.keystore.location": join(dir, "client.pem"), "ssl.keystore.type": "PEM", "ssl.key.password": "k", "ssl.endpoint.identification.algorithm": "" })?.ssl;
  expect(ssl).toEqual({ ca: "CA", cert: "KEY+CHAIN", key: "KEY+CHAIN", passphrase: "k", checkHostname: false });
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
  expect(problem({ "security.protocol": "SSL", "ssl.truststore.location": "/x.jks", "ssl.truststore.type": "JKS" })).toContain("keytool");
});
