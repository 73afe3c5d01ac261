// Leader election among registry instances, as Confluent's assignor decides it.
import { expect, test } from "bun:test";
import { electLeader, type Identity } from "#src/registry/cluster.ts";

const id = (host: string, port: number, eligible = true, scheme = "http"): Identity => ({
  version: 1,
  host,
  port,
  master_eligibility: eligible,
  scheme,
});

test("the eligible instance with the smallest URL leads", () => {
  const a = electLeader([
    { memberId: "m1", identity: id("sr-b", 8081) },
    { memberId: "m2", identity: id("sr-a", 8082) },
    { memberId: "m3", identity: id("sr-a", 8081, false) },
  ]);
  expect(a).toEqual({ version: 1, error: 0, master: "m2", master_identity: id("sr-a", 8082) });
});

test("no eligible instance: no leader, writes are refused with 50004", () => {
  expect(electLeader([{ memberId: "m1", identity: id("sr", 8081, false) }])).toEqual({
    version: 1,
    error: 0,
    master: null,
    master_identity: null,
  });
});

test("two instances advertising one URL: an error and no leader (they could not forward to each other)", () => {
  const a = electLeader([
    { memberId: "m1", identity: id("localhost", 8081) },
    { memberId: "m2", identity: id("localhost", 8081) },
  ]);
  expect(a.error).toBe(1);
  expect(a.master).toBeNull();
});
