// The search sink's HTTPS settings against a real TLS server in this process (Bun.serve with the test's
// certificates): inline PEM trust and key material, failover past a server whose certificate is not
// trusted, TLS failures named by the setting to fix and not retried, http:// staying plain under SSL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RetriableException } from "#src/connect/api/connector.ts";
import { BulkClient } from "#src/connectors/search-sink/bulk-client.ts";
import { SearchTlsException, searchHttps } from "#src/connectors/search-sink/https.ts";
import { searchSinkConfig, searchSinkSettings } from "#src/connectors/search-sink/settings.ts";
import { certificateAuthority, type Authority, type Issued } from "../../../fixtures/certificates.ts";

let ca: Authority;
let client: Issued;
/** Wants a client certificate from `ca`. */
let mutual: ReturnType<typeof Bun.serve>;
/** Its certificate is signed by another CA. */
let foreign: ReturnType<typeof Bun.serve>;
let plain: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  ca = certificateAuthority("unit CA");
  client = ca.issue("sluice", "client");
  const node = ca.issue("search", "server");
  const stranger = certificateAuthority("other CA").issue("search", "server");
  const answer = (request: Request) => Response.json({ path: new URL(request.url).pathname });
  mutual = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { key: node.key, cert: node.cert, ca: [ca.cert], requestCert: true, rejectUnauthorized: true },
    fetch: answer,
  });
  foreign = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { key: stranger.key, cert: stranger.cert },
    fetch: answer,
  });
  plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: answer });
});
afterAll(() => {
  for (const server of [mutual, foreign, plain]) server?.stop(true);
});

const https = (server: ReturnType<typeof Bun.serve>, host = "127.0.0.1") => `https://${host}:${server.port}`;

/** A client from connector settings, as the task builds it. */
function clientFor(urls: string[], props: Record<string, string>): BulkClient {
  const config = searchSinkConfig(
    searchSinkSettings.parse({ "connection.url": urls.join(","), "max.retries": "0", ...props }).values,
  );
  return new BulkClient(config);
}

const inlineTrust = () => ({
  "elastic.security.protocol": "SSL",
  "elastic.https.ssl.truststore.certificates": ca.cert,
});
const inlineKey = () => ({
  "elastic.https.ssl.keystore.key": client.key,
  "elastic.https.ssl.keystore.certificate.chain": client.cert,
});

async function failure(request: Promise<unknown>): Promise<unknown> {
  return request.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("search sink HTTPS", () => {
  test("inline PEM trust and key material reach a server that requires a client certificate", async () => {
    const reply = await clientFor([https(mutual)], { ...inlineTrust(), ...inlineKey() }).request("GET", "/");
    expect(reply.status).toBe(200);
  });

  test("without a client certificate the refused handshake names the key store, and is not retried", async () => {
    const err = await failure(clientFor([https(mutual)], inlineTrust()).request("GET", "/"));
    expect(err).toBeInstanceOf(SearchTlsException);
    expect(err).not.toBeInstanceOf(RetriableException);
    expect((err as SearchTlsException).setting).toBe("elastic.https.ssl.keystore.location");
    expect((err as Error).message).toContain(`TLS handshake with ${https(mutual)} failed: `);
  });

  test("an untrusted certificate names where the trusted CAs come from", async () => {
    const inline = (await failure(
      clientFor([https(foreign)], { ...inlineTrust(), ...inlineKey() }).request("GET", "/"),
    )) as SearchTlsException;
    expect(inline).toBeInstanceOf(SearchTlsException);
    expect(inline.setting).toBe("elastic.https.ssl.truststore.certificates");
    expect(inline.message).toContain(
      "the server's certificate is not signed by a CA in elastic.https.ssl.truststore.certificates",
    );
    // PLAINTEXT: the runtime's CAs, and the fix is to turn SSL on.
    const runtime = (await failure(clientFor([https(foreign)], {}).request("GET", "/"))) as SearchTlsException;
    expect(runtime).toBeInstanceOf(SearchTlsException);
    expect(runtime.setting).toBe("elastic.security.protocol");
    // Bun's advice about its own debug option is left out.
    expect(runtime.message).not.toContain("verbose");
  });

  test("a server with an untrusted certificate is skipped for the next URL", async () => {
    const reply = await clientFor([https(foreign), https(mutual)], { ...inlineTrust(), ...inlineKey() }).request(
      "GET",
      "/x",
    );
    expect(reply.url).toBe(https(mutual));
    expect(JSON.parse(reply.text)).toEqual({ path: "/x" });
  });

  test("a host name the certificate does not list names the endpoint identification setting; empty skips the check", async () => {
    // The certificate lists 127.0.0.1 and localhost, not 127.0.0.2 (a loopback address the server does
    // not listen on would fail to connect first), so the server listens everywhere for this one.
    const node = ca.issue("search", "server");
    const anywhere = Bun.serve({
      hostname: "0.0.0.0",
      port: 0,
      tls: { key: node.key, cert: node.cert },
      fetch: () => new Response("{}"),
    });
    try {
      const url = https(anywhere, "127.0.0.2");
      const err = (await failure(clientFor([url], inlineTrust()).request("GET", "/"))) as SearchTlsException;
      expect(err).toBeInstanceOf(SearchTlsException);
      expect(err.setting).toBe("elastic.https.ssl.endpoint.identification.algorithm");
      const unchecked = await clientFor([url], {
        ...inlineTrust(),
        "elastic.https.ssl.endpoint.identification.algorithm": "",
      }).request("GET", "/");
      expect(unchecked.status).toBe(200);
    } finally {
      anywhere.stop(true);
    }
  });

  test("under SSL an http:// URL stays plain HTTP; http:// to a TLS port hints at https://", async () => {
    expect((await clientFor([`http://127.0.0.1:${plain.port}`], inlineTrust()).request("GET", "/")).status).toBe(200);
    const err = await failure(clientFor([`http://127.0.0.1:${foreign.port}`], {}).request("GET", "/"));
    expect(err).toBeInstanceOf(RetriableException);
    expect((err as Error).message).toEndWith("; if the server speaks HTTPS, the URL must start with https://)");
  });

  test("PLAINTEXT ignores the SSL settings; SSL without a trust store leaves the runtime's CAs", () => {
    expect(searchHttps({ "elastic.https.ssl.truststore.certificates": "not read" })).toEqual({
      ssl: false,
      tls: undefined,
      trustSetting: undefined,
      clientCertificate: false,
    });
    expect(
      searchHttps({
        "elastic.security.protocol": "ssl",
        "elastic.https.ssl.endpoint.identification.algorithm": "https",
      }),
    ).toEqual({
      ssl: true,
      tls: undefined,
      trustSetting: undefined,
      clientCertificate: false,
    });
  });
});
