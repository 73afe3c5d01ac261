// Kafka client security settings → what the Kafka client gets, with Kafka's setting names.
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientSecurity, hasSecurityOverride, overriddenSecurity } from "#src/broker/client-security.ts";
import { ConfigError } from "#src/platform/settings.ts";
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
    "kafkastore.sasl.jaas.config":
      'org.apache.kafka.common.security.scram.ScramLoginModule required username="sr" password="p\\"w;d";',
    "kafkastore.ssl.truststore.certificates": ca.cert,
  };
  const security = clientSecurity(props, "kafkastore.");
  expect(security?.sasl).toEqual({ mechanism: "scram-sha-512", username: "sr", password: 'p"w;d' });
  expect(security?.ssl?.ca?.map((c) => c.trim())).toEqual([ca.cert.trim()]);
  expect(security?.ssl?.checkHostname).toBe(true);
  expect(
    clientSecurity({
      "security.protocol": "SASL_PLAINTEXT",
      "sasl.mechanism": "PLAIN",
      "sasl.jaas.config": "x required username=u password=p;",
    })?.sasl,
  ).toEqual({ mechanism: "plain", username: "u", password: "p" });
});

test("SSL from PEM or PKCS12 stores; host name checks off only when the algorithm is set empty", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-stores-"));
  writeFileSync(join(dir, "ca.pem"), ca.cert);
  writeFileSync(join(dir, "client.pem"), client.key + client.cert);
  writeFileSync(join(dir, "client.p12"), pkcs12(client, [ca.cert], "store-pw"));
  const pem = clientSecurity({
    "security.protocol": "SSL",
    "ssl.truststore.location": join(dir, "ca.pem"),
    "ssl.truststore.type": "PEM",
    "ssl.keystore.location": join(dir, "client.pem"),
    "ssl.keystore.type": "PEM",
    "ssl.endpoint.identification.algorithm": "",
  })?.ssl;
  expect(pem?.ca?.map((c) => c.trim())).toEqual([ca.cert.trim()]);
  expect(pem).toMatchObject({ cert: expect.stringContaining(client.cert.trim()), checkHostname: false });
  expect(pem?.key).toContain("PRIVATE KEY");
  const p12 = clientSecurity({
    "security.protocol": "SSL",
    "ssl.truststore.location": join(dir, "ca.pem"),
    "ssl.truststore.type": "PEM",
    "ssl.keystore.location": join(dir, "client.p12"),
    "ssl.keystore.type": "PKCS12",
    "ssl.keystore.password": "store-pw",
  })?.ssl;
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
  const noUser = problem({
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "PLAIN",
    "sasl.jaas.config": 'x required password="secret-pw";',
  });
  expect(noUser).toContain("sasl.jaas.config");
  expect(noUser).not.toContain("secret-pw");
  expect(
    problem({
      "security.protocol": "SSL",
      "ssl.truststore.location": "/nonexistent.p12",
      "ssl.truststore.type": "PKCS12",
    }),
  ).toContain("ssl.truststore.location");
});

const OAUTH_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
const HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";
const problemOf = (props: Record<string, string>, prefix = "") => {
  try {
    clientSecurity(props, prefix);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
};

test("GSSAPI (Kerberos), given or Kafka's default, is refused by name", () => {
  const unset = problemOf({ "kafkastore.security.protocol": "SASL_SSL" }, "kafkastore.");
  expect(unset).toContain("kafkastore.sasl.mechanism");
  expect(unset).toContain("Kerberos");
  expect(unset).toContain("Kafka's default");
  expect(unset).toContain("OAUTHBEARER");
  const given = problemOf({
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "GSSAPI",
    "sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;",
  });
  expect(given).toContain("does not support");
  expect(given).not.toContain("Kafka's default");
  expect(problemOf({ "security.protocol": "SASL_SSL", "sasl.mechanism": "AWS_MSK_IAM" })).toContain(
    "IAMOAuthBearerLoginCallbackHandler",
  );
});

test("OAUTHBEARER with the JAAS options clientId, clientSecret and scope (Kafka before 4.1), under a prefix", () => {
  const security = clientSecurity(
    {
      "kafkastore.security.protocol": "SASL_PLAINTEXT",
      "kafkastore.sasl.mechanism": "OAUTHBEARER",
      "kafkastore.sasl.login.callback.handler.class":
        "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
      "kafkastore.sasl.oauthbearer.token.endpoint.url": "https://idp.example/oauth2/token",
      "kafkastore.sasl.jaas.config": `${OAUTH_MODULE} required clientId="registry" clientSecret="s3cr\\"et" scope="kafka write";`,
      "kafkastore.sasl.login.refresh.buffer.seconds": "120",
      "kafkastore.sasl.login.retry.backoff.max.ms": "2000",
    },
    "kafkastore.",
  );
  expect(security?.ssl).toBeUndefined();
  expect(security?.sasl).toEqual({
    mechanism: "oauthbearer",
    login: {
      kind: "client-credentials",
      prefix: "kafkastore.",
      tokenUrl: "https://idp.example/oauth2/token",
      clientId: "registry",
      clientSecret: 's3cr"et',
      scope: "kafka write",
      urlencodeHeader: false,
      retryBackoffMs: 100,
      retryBackoffMaxMs: 2000,
      subClaim: "sub",
      refresh: { windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 120 },
    },
  });
});

test("OAUTHBEARER with Kafka 4.1's own settings (KIP-1139), which win over the JAAS options; trust store for the endpoint from the JAAS options", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-oauth-"));
  writeFileSync(join(dir, "idp-ca.pem"), ca.cert);
  const security = clientSecurity({
    "security.protocol": "SASL_SSL",
    "ssl.truststore.certificates": ca.cert,
    "sasl.mechanism": "oauthbearer",
    "sasl.login.callback.handler.class": HANDLER,
    "sasl.oauthbearer.jwt.retriever.class":
      "org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever",
    "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
    "sasl.oauthbearer.client.credentials.client.id": "connect",
    "sasl.oauthbearer.client.credentials.client.secret": "from-setting",
    "sasl.oauthbearer.scope": "kafka",
    "sasl.oauthbearer.header.urlencode": "true",
    "sasl.oauthbearer.sub.claim.name": "client_id",
    "sasl.login.connect.timeout.ms": "5000",
    "sasl.login.read.timeout.ms": "7000",
    "sasl.jaas.config": `${OAUTH_MODULE} required clientId="old" clientSecret="old-secret" ssl.truststore.location="${join(dir, "idp-ca.pem")}" ssl.truststore.type="PEM";`,
  });
  expect(security?.ssl?.ca).toHaveLength(1);
  const login = security?.sasl?.mechanism === "oauthbearer" ? security.sasl.login : undefined;
  expect(login).toMatchObject({
    kind: "client-credentials",
    clientId: "connect",
    clientSecret: "from-setting",
    scope: "kafka",
    urlencodeHeader: true,
    subClaim: "client_id",
    connectTimeoutMs: 5000,
    readTimeoutMs: 7000,
  });
  expect(login?.kind === "client-credentials" ? login.tls?.ca?.map((c) => c.trim()) : undefined).toEqual([
    ca.cert.trim(),
  ]);
});

test("a file: token endpoint reads a token file; Amazon MSK IAM takes the profile from the JAAS options", () => {
  const file = clientSecurity({
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": HANDLER,
    "sasl.oauthbearer.token.endpoint.url": "file:///var/run/secrets/kafka%20token",
    "sasl.jaas.config": `${OAUTH_MODULE} required;`,
  });
  expect(file?.sasl).toMatchObject({
    mechanism: "oauthbearer",
    login: { kind: "file", path: "/var/run/secrets/kafka token" },
  });
  const msk = clientSecurity({
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
    "sasl.client.callback.handler.class": "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
    "sasl.jaas.config": `${OAUTH_MODULE} required awsProfileName="msk-writer";`,
  });
  expect(msk?.sasl).toMatchObject({ mechanism: "oauthbearer", login: { kind: "aws-msk-iam", profile: "msk-writer" } });
  const role = clientSecurity({
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
    "sasl.jaas.config": `${OAUTH_MODULE} required awsRoleArn="arn:aws:iam::1:role/w" awsRoleExternalId="e" awsStsRegion="eu-west-1" awsRoleAccessKeyId="AKIA1" awsRoleSecretAccessKey="s";`,
  })?.sasl;
  expect(role).toMatchObject({
    login: {
      kind: "aws-msk-iam",
      role: {
        arn: "arn:aws:iam::1:role/w",
        sessionName: "aws-msk-iam-auth",
        externalId: "e",
        stsRegion: "eu-west-1",
        credentials: { accessKeyId: "AKIA1", secretAccessKey: "s" },
      },
    },
  });
  expect(msk?.ssl).toBeDefined();
});

test("OAUTHBEARER settings that cannot be used are refused by name, never showing the secret", () => {
  const base = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": HANDLER,
    "sasl.oauthbearer.token.endpoint.url": "http://idp/token",
  };
  const jaas = `${OAUTH_MODULE} required clientId="c" clientSecret="hidden-secret";`;
  expect(
    problemOf({ ...base, "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required;" }),
  ).toContain("OAuthBearerLoginModule");
  // No login handler: Kafka's unsecured login, which needs its subject.
  const unsecured = problemOf({
    ...base,
    "sasl.login.callback.handler.class": "",
    "sasl.jaas.config": `${OAUTH_MODULE} required clientId="c";`,
  });
  expect(unsecured).toContain("unsecuredLoginStringClaim_sub");
  expect(unsecured).toContain("sasl.oauthbearer.token.endpoint.url");
  expect(
    problemOf({
      ...base,
      "sasl.jaas.config": `${OAUTH_MODULE} required clientId="c" clientSecret="s" extension_auth="x";`,
    }),
  ).toContain("extension_auth");
  expect(
    problemOf({
      ...base,
      "sasl.login.callback.handler.class": "io.strimzi.kafka.oauth.client.JaasClientOauthLoginCallbackHandler",
      "sasl.jaas.config": jaas,
    }),
  ).toContain("io.strimzi");
  expect(problemOf({ ...base, "sasl.oauthbearer.token.endpoint.url": "", "sasl.jaas.config": jaas })).toContain(
    "sasl.oauthbearer.token.endpoint.url",
  );
  expect(
    problemOf({ ...base, "sasl.jaas.config": `${OAUTH_MODULE} required clientSecret="hidden-secret";` }),
  ).toContain("sasl.oauthbearer.client.credentials.client.id");
  const noSecret = problemOf({ ...base, "sasl.jaas.config": `${OAUTH_MODULE} required clientId="c";` });
  expect(noSecret).toContain("sasl.oauthbearer.client.credentials.client.secret");
  expect(
    problemOf({
      ...base,
      "sasl.oauthbearer.jwt.retriever.class": "org.apache.kafka.common.security.oauthbearer.JwtBearerJwtRetriever",
      "sasl.jaas.config": jaas,
    }),
  ).toContain("sasl.oauthbearer.jwt.retriever.class");
  const range = problemOf({ ...base, "sasl.login.refresh.window.factor": "0.3", "sasl.jaas.config": jaas });
  expect(range).toContain("sasl.login.refresh.window.factor");
  expect(range).not.toContain("hidden-secret");
  expect(
    problemOf({
      ...base,
      "sasl.login.callback.handler.class": "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
      "sasl.jaas.config": `${OAUTH_MODULE} required awsRoleArn="arn:aws:iam::1:role/x" awsRoleAccessKeyId="AKIA";`,
    }),
  ).toContain("awsRoleSecretAccessKey");
});

test("client overrides: security settings under the prefixes replace the worker's; prefixes that disagree are refused", () => {
  const worker = {
    "bootstrap.servers": "k:9092",
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "PLAIN",
    "sasl.jaas.config": "w",
    "producer.linger.ms": "5",
  };
  expect(overriddenSecurity(worker, worker, ["producer.", "consumer."])).toEqual({
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "PLAIN",
    "sasl.jaas.config": "w",
  });
  const connector = {
    "producer.override.sasl.jaas.config": "c",
    "producer.override.batch.size": "1",
    "admin.override.sasl.jaas.config": "c",
  };
  expect(hasSecurityOverride(connector, ["producer.override.", "admin.override."])).toBe(true);
  expect(hasSecurityOverride({ "producer.override.batch.size": "1" }, ["producer.override."])).toBe(false);
  expect(
    overriddenSecurity(worker, connector, ["producer.override.", "consumer.override.", "admin.override."]),
  ).toEqual({ "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.jaas.config": "c" });
  let message = "";
  try {
    overriddenSecurity(
      worker,
      { "producer.override.sasl.jaas.config": "secret-a", "consumer.override.sasl.jaas.config": "secret-b" },
      ["producer.override.", "consumer.override."],
    );
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    message = (err as Error).message;
  }
  expect(message).toContain("consumer.override.sasl.jaas.config");
  expect(message).toContain("producer.override.sasl.jaas.config");
  expect(message).not.toContain("secret-");
});

test("Kafka's unsecured login (no handler): claims from the JAAS options; SASL extensions from extension_* options", () => {
  const unsecured = clientSecurity({
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.jaas.config": `${OAUTH_MODULE} required unsecuredLoginStringClaim_sub="alice" unsecuredLoginListClaim_scope=",read,write" unsecuredLoginNumberClaim_level="3" unsecuredLoginLifetimeSeconds="60" unsecuredLoginExtension_traceId="abc";`,
  })?.sasl;
  expect(unsecured).toEqual({
    mechanism: "oauthbearer",
    login: {
      kind: "unsecured",
      prefix: "",
      claims: { sub: "alice", scope: ["read", "write"], level: 3 },
      principalClaim: "sub",
      lifetimeSeconds: 60,
      refresh: { windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300 },
    },
    extensions: { traceId: "abc" },
  });
  const cloud = clientSecurity({
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.login.callback.handler.class": HANDLER,
    "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
    "sasl.jaas.config": `${OAUTH_MODULE} required clientId="c" clientSecret="s" extension_logicalCluster="lkc-1" extension_identityPoolId="pool-2";`,
  })?.sasl;
  expect(cloud?.mechanism === "oauthbearer" ? cloud.extensions : undefined).toEqual({
    logicalCluster: "lkc-1",
    identityPoolId: "pool-2",
  });
});
