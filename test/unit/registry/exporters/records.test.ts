// The exporters' topic records: keys naming the exporter, JSON values, tombstones; read back into the
// state as written, records of another tenant or shape skipped.
import { expect, test } from "bun:test";
import { decoder, encoder } from "#src/broker/broker.ts";
import {
  decodeInfo,
  decodeStatus,
  encodeInfo,
  encodeKey,
  encodeStatus,
  type ExporterInfo,
  type ExporterStatus,
} from "#src/registry/exporters/records.ts";
import { openSecrets, PasswordEncoder, sealSecrets } from "#src/registry/exporters/secrets.ts";
import { NamedState } from "#src/registry/exporters/state.ts";

const info: ExporterInfo = {
  name: "dr",
  contextType: "CUSTOM",
  context: "backup",
  subjects: ["orders-*"],
  subjectRenameFormat: "dc_${subject}",
  config: { "schema.registry.url": "http://dest:8081" },
};
const status: ExporterStatus = { name: "dr", state: "RUNNING", offset: 42, ts: 1700000000000 };

test("keys name the exporter in the default tenant; values are JSON", () => {
  expect(decoder.decode(encodeKey({ name: "dr", value: null }))).toBe('{"tenant":"default","name":"dr"}');
  expect(JSON.parse(decoder.decode(encodeInfo(info)))).toEqual(info);
  expect(decoder.decode(encodeStatus(status))).toBe('{"name":"dr","state":"RUNNING","offset":42,"ts":1700000000000}');
});

test("the state applies writes and tombstones in order, skipping what it cannot read", () => {
  const configs = new NamedState(decodeInfo);
  const key = encodeKey({ name: "dr", value: null });
  expect(configs.apply(key, encodeInfo(info))).toBe(true);
  expect(configs.get("dr")?.value).toEqual(info);
  expect(configs.names()).toEqual(["dr"]);
  // Another tenant's exporter, or a value of another shape, is not this registry's.
  expect(configs.apply(encoder.encode('{"tenant":"other","name":"x"}'), encodeInfo(info))).toBe(false);
  expect(configs.apply(encodeKey({ name: "bad", value: null }), encoder.encode('{"contextType":"SOMETIMES"}'))).toBe(
    false,
  );
  expect(configs.apply(key, null)).toBe(true);
  expect(configs.names()).toEqual([]);

  const states = new NamedState(decodeStatus);
  states.apply(key, encodeStatus({ ...status, state: "ERROR", trace: "401" }));
  expect(states.get("dr")?.value).toEqual({ ...status, state: "ERROR", trace: "401" });
});

test("secrets are sealed with password.encoder.secret, opened only with it, and never re-sealed", () => {
  const encoder = new PasswordEncoder("encoder-secret");
  const config = { "schema.registry.url": "http://d:8081", "basic.auth.user.info": "u:p", "bearer.auth.token": "t" };
  const sealed = sealSecrets(config, encoder);
  expect(sealed["schema.registry.url"]).toBe("http://d:8081");
  expect(sealed["basic.auth.user.info"]).toStartWith("sluice-encrypted:v1:");
  expect(JSON.stringify(sealed)).not.toContain("u:p");
  expect(sealSecrets(sealed, encoder)).toEqual(sealed);
  expect(openSecrets(sealed, encoder)).toEqual(config);
  expect(() => openSecrets(sealed, undefined)).toThrow("password.encoder.secret");
  expect(() => openSecrets(sealed, new PasswordEncoder("another"))).toThrow("cannot be decrypted");
  // Without a secret, stored as given.
  expect(sealSecrets(config, undefined)).toEqual(config);
});
