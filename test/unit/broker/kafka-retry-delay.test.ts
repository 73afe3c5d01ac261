import { describe, expect, test } from "bun:test";
import { ProtocolError, ResponseError } from "@platformatic/kafka";
import { retryDelayMs } from "#src/broker/kafka/errors.ts";

// What the library's AddPartitionsToTxn answers while the coordinator still completes the last transaction.
const concurrent = () => new ResponseError(24, 5, { "/results/0": [51, null] }, {});
const notCoordinator = () => new ProtocolError("NOT_COORDINATOR");

describe("retryDelayMs", () => {
  test("100 ms, doubling up to 2 s", () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => retryDelayMs("produce", a, notCoordinator()))).toEqual([
      100, 200, 400, 800, 1600, 2000,
    ]);
  });

  test("a transaction's AddPartitionsToTxn refused with CONCURRENT_TRANSACTIONS is asked again after 20 ms", () => {
    expect(concurrent().errors.map((e) => (e as ProtocolError).apiId)).toEqual(["CONCURRENT_TRANSACTIONS"]);
    expect(retryDelayMs("addPartitionsToTransaction", 1, concurrent())).toBe(20);
    expect(retryDelayMs("addPartitionsToTransaction", 2, concurrent())).toBe(20);
    // A coordinator that stays busy is given the usual time after that.
    expect(retryDelayMs("addPartitionsToTransaction", 3, concurrent())).toBe(400);
  });

  test("other errors and operations keep the usual delay", () => {
    expect(retryDelayMs("addPartitionsToTransaction", 1, notCoordinator())).toBe(100);
    expect(retryDelayMs("endTransaction", 1, concurrent())).toBe(100);
  });
});
