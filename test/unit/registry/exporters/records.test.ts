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
