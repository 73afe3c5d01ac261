// The Elasticsearch sink over HTTPS to real OpenSearch nodes serving TLS through OpenSearch's own
// security plugin (TLS only), with this test's certificate authority: documents are indexed with a
// PKCS12 or a PEM trust store, and with a client key store where the node requires client certificates;
// a node certificate from another CA, a host name the certificate does not list, a missing client
// certificate, a JKS file and an http:// URL to the TLS port each fail validation naming the setting to
// fix, and a trust store that changes under a running sink fails its task the same way.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { encoder } from "#src/broker/broker.ts";
import { certificateAuthority, pkcs12, type Authority } from "../../fixtures/certificates.ts";
import { connectClient, removeConnectDir, startTestConnect, type TestConnect } from "../../fixtures/connect.ts";
import { startOpenSearch, type OpenSearchNode } from "../../fixtures/opensearch.ts";
import { waitFor } from "../../fixtures/wait.ts";

const PASSWORD = "store-secret";

/** A PKCS12 trust store: CA certificates without a key, as keytool -importcert writes one. */
function pkcs12TrustStore(certs: string[], password: string): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    null,
    certs.map((pem) => forge.pki.certificateFromPem(pem)),
    password,
    { algorithm: "aes256" },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), "binary");
}

describe("Elasticsearch sink over HTTPS", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-search-https-"));
  const file = (name: string, content: string | Buffer) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
  let ca: Authority;
  /** Trusts client certificates from `ca`, does not require one. */
  let optional: OpenSearchNode;
  /** Requires a client certificate signed by `ca`. */
  let required: OpenSearchNode;
  let worker: TestConnect;
  let api: ReturnType<typeof connectClient>;
  const stores: Record<string, string> = {};
  const run = Date.now();

  beforeAll(async () => {
    ca = certificateAuthority("search test CA");
    const other = certificateAuthority("another CA");
    const node = ca.issue("opensearch", "server");
    const client = ca.issue("sluice", "client");
    stores.caPem = file("ca.pem", ca.cert);
    stores.caP12 = file("ca.p12", pkcs12TrustStore([ca.cert], PASSWORD));
    stores.otherPem = file("other.pem", other.cert);
    stores.clientP12 = file("client.p12", pkcs12(client, [ca.cert], PASSWORD));
    stores.clientPem = file("client.pem", `${client.key}${client.cert}${ca.cert}`);
    // A Java KeyStore: its magic number, then anything.
    stores.jks = file(
      "trust.jks",
      Buffer.concat([Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]), Buffer.alloc(64)]),
    );
    // The nodes one after the other: each takes the first free port from the base it drew, so two
    // starting at once could end up where the other was expected.
    const nodes = async () => {
      optional = await startOpenSearch({ ca: ca.cert, node, clientAuth: "OPTIONAL" });
      required = await startOpenSearch({ ca: ca.cert, node, clientAuth: "REQUIRE", client });
    };
    [, worker] = await Promise.all([nodes(), startTestConnect("kafka")]);
    api = connectClient(worker.url);
  }, 600_000);
  afterAll(async () => {
    await worker?.stop();
    removeConnectDir(worker);
    await Promise.all([optional?.stop(), required?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const sink = (search: OpenSearchNode, topic: string, extra: Record<string, string>) => ({
    "connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
    topics: topic,
    "connection.url": search.url,
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    "max.retries": "1",
    ...extra,
  });
  const ssl = (extra: Record<string, string>) => ({ "elastic.security.protocol": "SSL", ...extra });

  /** The errors of a validation, by setting, only for settings that have some. */
  async function validate(config: Record<string, string>): Promise<Record<string, string[]>> {
    const res = await api.put("/connector-plugins/ElasticsearchSinkConnector/config/validate", {
      name: "v",
      ...config,
    });
    expect(res.status).toBe(200);
    const infos = res.body as { configs: { value: { name: string; errors: string[] } }[] };
    return Object.fromEntries(
      infos.configs.filter((c) => c.value.errors.length > 0).map((c) => [c.value.name, c.value.errors]),
    );
  }

  async function produce(topic: string, keys: string[]): Promise<void> {
    await worker.connect.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
    await worker.connect.broker.produce(
      topic,
      keys.map((key) => ({ key: encoder.encode(key), value: encoder.encode(JSON.stringify({ key, run })) })),
    );
  }

  /** Runs a sink until the partition is committed up to `count`, then reads the documents back over HTTPS. */
  async function indexed(search: OpenSearchNode, name: string, extra: Record<string, string>): Promise<void> {
    const topic = `search-https-${name}-${run}`;
    await produce(topic, ["a", "b"]);
    const created = await api.post("/connectors", { name, config: sink(search, topic, extra) });
    expect(created.status).toBe(201);
    await waitFor(
      `${name} committed 2`,
      async () =>
        (await api.get(`/connectors/${name}/offsets`)).body.offsets?.[0]?.offset.kafka_offset === 2 || undefined,
    );
    for (const key of ["a", "b"]) {
      const r = await fetch(`${search.url}/${topic}/_doc/${key}`, { tls: search.tls });
      expect(((await r.json()) as { _source: unknown })._source).toEqual({ key, run });
    }
    await api.delete(`/connectors/${name}`);
  }

  /** Resumes the stopped sink (new tasks, which read the stores again) and waits until its task failed with `expected` in its trace. */
  async function resumeFailing(name: string, expected: string): Promise<string> {
    expect((await api.put(`/connectors/${name}/resume`)).status).toBeLessThan(300);
    return waitFor(`${name}'s task to fail with ${expected}`, async () => {
      const t = (await api.get(`/connectors/${name}/status`)).body.tasks?.[0] as
        | { state: string; trace?: string }
        | undefined;
      return t?.state === "FAILED" && t.trace?.includes(expected) ? t.trace : undefined;
    });
  }

  /** Stops the sink: its tasks are shut down, so none reads what comes next with its old stores. */
  async function stopped(name: string): Promise<void> {
    expect((await api.put(`/connectors/${name}/stop`)).status).toBeLessThan(300);
    await api.waitForState(name, "STOPPED");
  }

  test("documents are indexed with a PKCS12 trust store and with a PEM one; validation connects clean", async () => {
    const p12 = ssl({
      "elastic.https.ssl.truststore.location": stores.caP12!,
      "elastic.https.ssl.truststore.password": PASSWORD,
      "elastic.https.ssl.truststore.type": "PKCS12",
    });
    const pem = ssl({
      "elastic.https.ssl.truststore.location": stores.caPem!,
      "elastic.https.ssl.truststore.type": "PEM",
    });
    expect(await validate(sink(optional, "t", p12))).toEqual({});
    expect(await validate(sink(optional, "t", pem))).toEqual({});
    await indexed(optional, "p12-trust", p12);
    await indexed(optional, "pem-trust", pem);
  });

  test("mutual TLS: a node that requires client certificates takes a PKCS12 or PEM key store, and without one the handshake failure names the key store", async () => {
    const trust = {
      "elastic.https.ssl.truststore.location": stores.caPem!,
      "elastic.https.ssl.truststore.type": "PEM",
    };
    const p12 = ssl({
      ...trust,
      "elastic.https.ssl.keystore.location": stores.clientP12!,
      "elastic.https.ssl.keystore.password": PASSWORD,
      "elastic.https.ssl.keystore.type": "PKCS12",
    });
    const pem = ssl({
      ...trust,
      "elastic.https.ssl.keystore.location": stores.clientPem!,
      "elastic.https.ssl.keystore.type": "PEM",
    });
    expect(await validate(sink(required, "t", p12))).toEqual({});
    await indexed(required, "mtls-p12", p12);
    await indexed(required, "mtls-pem", pem);

    const noClientCert = await validate(sink(required, "t", ssl(trust)));
    expect(Object.keys(noClientCert).sort()).toEqual([
      "connection.url",
      "elastic.https.ssl.keystore.location",
      "elastic.security.protocol",
    ]);
    expect(noClientCert["elastic.https.ssl.keystore.location"]![0]).toContain("TLS handshake with https://127.0.0.1:");
    expect(noClientCert["elastic.https.ssl.keystore.location"]![0]).toContain(
      "the server may require a client certificate (set elastic.https.ssl.keystore.location)",
    );
    expect(noClientCert["elastic.security.protocol"]![0]).toStartWith(
      "Could not connect to Elasticsearch. Check your SSL settings. Error message: TLS handshake",
    );
  });

  test("a node certificate from another CA fails validation, naming the trust store", async () => {
    const otherCa = ssl({
      "elastic.https.ssl.truststore.location": stores.otherPem!,
      "elastic.https.ssl.truststore.type": "PEM",
    });
    const errors = await validate(sink(optional, "t", otherCa));
    expect(Object.keys(errors).sort()).toEqual([
      "connection.url",
      "elastic.https.ssl.truststore.location",
      "elastic.security.protocol",
    ]);
    const message = errors["elastic.https.ssl.truststore.location"]![0]!;
    expect(message).toStartWith(`TLS error from ${optional.url}: `);
    expect(message).toContain(
      "the server's certificate is not signed by a CA in elastic.https.ssl.truststore.location",
    );
    expect(errors["connection.url"]![0]).toStartWith(`Could not connect to Elasticsearch. Error message: ${message}`);
  });

  test("a task whose trust store no longer holds the node's CA fails at once naming it; a trust store become JKS fails the task naming it", async () => {
    // Validation passes when the connector is created; then the store file changes under it (a rotation
    // gone wrong) and the next task meets it.
    const rotating = file("rotating.pem", ca.cert);
    const name = "rotating";
    const topic = `search-https-${name}-${run}`;
    await produce(topic, ["before"]);
    // Not retried: max.retries would only meet the same certificate again, a minute apart.
    const config = sink(
      optional,
      topic,
      ssl({
        "elastic.https.ssl.truststore.location": rotating,
        "elastic.https.ssl.truststore.type": "PEM",
        "max.retries": "100",
        "retry.backoff.ms": "60000",
      }),
    );
    expect((await api.post("/connectors", { name, config })).status).toBe(201);
    await waitFor(
      `${name} committed 1`,
      async () =>
        (await api.get(`/connectors/${name}/offsets`)).body.offsets?.[0]?.offset.kafka_offset === 1 || undefined,
    );

    await stopped(name);
    writeFileSync(rotating, certificateAuthority("a third CA").cert);
    await worker.connect.broker.produce(topic, [{ key: encoder.encode("after"), value: encoder.encode("{}") }]);
    const trace = await resumeFailing(
      name,
      "the server's certificate is not signed by a CA in elastic.https.ssl.truststore.location",
    );
    expect(trace).toContain(`TLS error from ${optional.url}: `);

    await stopped(name);
    writeFileSync(rotating, readFileSync(stores.jks!));
    await resumeFailing(name, "elastic.https.ssl.truststore.location: JKS key stores are not supported");
    await api.delete(`/connectors/${name}`);
  });

  test("an https:// URL without SSL settings trusts only the runtime's CAs, which do not know the test CA", async () => {
    const errors = await validate(sink(optional, "t", {}));
    expect(Object.keys(errors).sort()).toEqual(["connection.url", "elastic.security.protocol"]);
    expect(errors["elastic.security.protocol"]![0]).toContain(
      "the server's certificate is not signed by a CA the runtime trusts: set elastic.security.protocol=SSL and elastic.https.ssl.truststore.location to the CA that signed it",
    );
  });

  test("the host name is checked unless elastic.https.ssl.endpoint.identification.algorithm is empty", async () => {
    // The node's certificate lists 127.0.0.1 and localhost; the node also listens on [::1].
    const v6 = { ...optional, url: optional.url.replace("127.0.0.1", "[::1]") };
    const trust = ssl({
      "elastic.https.ssl.truststore.location": stores.caPem!,
      "elastic.https.ssl.truststore.type": "PEM",
    });
    const errors = await validate(sink(v6, "t", trust));
    expect(Object.keys(errors).sort()).toEqual([
      "connection.url",
      "elastic.https.ssl.endpoint.identification.algorithm",
      "elastic.security.protocol",
    ]);
    expect(errors["elastic.https.ssl.endpoint.identification.algorithm"]![0]).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(
      await validate(sink(v6, "t", { ...trust, "elastic.https.ssl.endpoint.identification.algorithm": "" })),
    ).toEqual({});
  });

  test("a JKS store is refused by name, before connecting", async () => {
    const errors = await validate(
      sink(
        optional,
        "t",
        ssl({
          "elastic.https.ssl.truststore.location": stores.jks!,
          "elastic.https.ssl.truststore.password": PASSWORD,
        }),
      ),
    );
    expect(Object.keys(errors)).toEqual(["elastic.https.ssl.truststore.location"]);
    expect(errors["elastic.https.ssl.truststore.location"]![0]).toContain(
      "JKS key stores are not supported; convert it to PKCS12 with keytool -importkeystore",
    );
    const keystore = await validate(
      sink(
        required,
        "t",
        ssl({ "elastic.https.ssl.keystore.location": stores.jks!, "elastic.https.ssl.keystore.password": PASSWORD }),
      ),
    );
    expect(keystore["elastic.https.ssl.keystore.location"]![0]).toContain("JKS key stores are not supported");
  });

  test("plain http to the TLS port fails clearly", async () => {
    const plain = { ...optional, url: optional.url.replace("https://", "http://") };
    const errors = await validate(sink(plain, "t", {}));
    expect(Object.keys(errors)).toEqual(["connection.url"]);
    expect(errors["connection.url"]![0]).toStartWith(
      `Could not connect to Elasticsearch. Error message: no server could be reached (${plain.url}: `,
    );
    expect(errors["connection.url"]![0]).toEndWith("; if the server speaks HTTPS, the URL must start with https://)");
  });

  test("the SSL settings go with elastic.security.protocol=SSL, as Confluent validates them", async () => {
    expect(await validate(sink(optional, "t", { "elastic.https.ssl.truststore.location": stores.caPem! }))).toEqual({
      "elastic.security.protocol": ["'elastic.security.protocol' must be set to 'SSL' to use SSL configs."],
    });
    const none = await validate(sink(optional, "t", { "elastic.security.protocol": "SSL" }));
    expect(none["elastic.security.protocol"]![0]).toStartWith(
      "At least these SSL configs ('elastic.https.ssl.keystore.location', ",
    );
  });
});
