// Key and trust stores read into Bun's TLS options: PEM, PKCS12, and the refusals with their reasons.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SettingsDefinition } from "#src/platform/settings.ts";
import { serverTls, storeSettings } from "#src/platform/tls.ts";
import { certificateAuthority, pkcs12 } from "../../fixtures/certificates.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-tls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ca = certificateAuthority("Unit CA");
const server = ca.issue("localhost", "server");
const file = (name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};
const settings = (raw: Record<string, string>) => new SettingsDefinition(storeSettings).parse(raw).values;

test("a PEM key store: the key and its certificate first in the chain", () => {
  const tls = serverTls(
    settings({
      "ssl.keystore.location": file("ks.pem", ca.cert + server.key + server.cert),
      "ssl.keystore.type": "PEM",
    }),
    "none",
  );
  expect(String(tls.cert).startsWith(server.cert)).toBe(true);
  expect(tls.requestCert).toBe(false);
});

test("a PKCS12 key store (also read under Java's default type JKS) and a PEM trust store", () => {
  const location = file("ks.p12", pkcs12(server, [ca.cert], "store-pass"));
  for (const type of ["PKCS12", "JKS"]) {
    const tls = serverTls(
      settings({
        "ssl.keystore.location": location,
        "ssl.keystore.password": "store-pass",
        "ssl.keystore.type": type,
        "ssl.truststore.location": file("ca.pem", ca.cert),
        "ssl.truststore.type": "PEM",
      }),
      "required",
    );
    expect(String(tls.cert).startsWith(server.cert)).toBe(true);
    expect(tls.ca).toEqual([ca.cert]);
    expect(tls.rejectUnauthorized).toBe(true);
  }
});

test("refusals name the setting and the reason, never a password", () => {
  const refused = (raw: Record<string, string>, clientAuth: "none" | "required" = "none") => {
    try {
      serverTls(settings(raw), clientAuth);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error("accepted");
  };
  const p12 = file("bad.p12", pkcs12(server, [], "right-pass"));
  const wrong = refused({ "ssl.keystore.location": p12, "ssl.keystore.password": "wrong-pass" });
  expect(wrong).toContain("ssl.keystore.location");
  expect(wrong).not.toContain("wrong-pass");
  expect(
    refused({ "ssl.keystore.location": file("ks.jks", Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2])) }),
  ).toContain("keytool -importkeystore");
  expect(refused({ "ssl.keystore.location": file("plain.pem", server.key + server.cert) })).toContain(
    "ssl.keystore.type",
  );
  expect(refused({})).toContain("a key store is required");
  expect(
    refused({ "ssl.keystore.location": file("other.pem", ca.key + server.cert), "ssl.keystore.type": "PEM" }),
  ).toContain("matches its private key");
  expect(
    refused(
      { "ssl.keystore.location": file("ok.pem", server.key + server.cert), "ssl.keystore.type": "PEM" },
      "required",
    ),
  ).toContain("ssl.truststore.location");
});
