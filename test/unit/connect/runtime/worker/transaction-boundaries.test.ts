import { describe, expect, test } from "bun:test";
import { ConnectException, SourceConnector } from "#src/connect/api/connector.ts";
import { sourceRecord } from "#src/connect/api/records.ts";
import { exactlyOnceCheck } from "#src/connect/runtime/herder/exactly-once-config.ts";
import { ConnectorTransactionRequests, endAfterPoll } from "#src/connect/runtime/worker/transaction-boundaries.ts";

const record = (n: number) => sourceRecord({ sourcePartition: { p: 0 }, sourceOffset: { n }, topic: "t", value: n });

describe("connector-defined transaction boundaries", () => {
  test("a poll is cut after each record the connector ended a transaction with", () => {
    const requests = new ConnectorTransactionRequests();
    const records = [0, 1, 2, 3, 4].map(record);
    requests.commitTransaction(records[1]);
    requests.abortTransaction(records[3]);
    expect(requests.segments(records)).toEqual([
      { records: records.slice(0, 2), end: "commit" },
      { records: records.slice(2, 4), end: "abort" },
      { records: records.slice(4), end: undefined },
    ]);
    // Used up: the next poll stays in one open transaction.
    expect(requests.segments([record(5)])).toEqual([{ records: [record(5)], end: undefined }]);
  });

  test("a request without a record ends the transaction after the poll's records, even an empty poll", () => {
    const requests = new ConnectorTransactionRequests();
    requests.commitTransaction();
    expect(requests.segments([])).toEqual([{ records: [], end: "commit" }]);
    requests.commitTransaction();
    requests.abortTransaction();
    expect(requests.segments([record(1)])).toEqual([{ records: [record(1)], end: "abort" }]);
  });

  test("commit and abort of the same record fails the task", () => {
    const requests = new ConnectorTransactionRequests();
    const r = record(1);
    requests.commitTransaction(r);
    requests.abortTransaction(r);
    expect(() => requests.segments([r])).toThrow(ConnectException);
  });
});

describe("runtime-defined transaction boundaries", () => {
  test("poll: after every poll that returned records", () => {
    expect(endAfterPoll("poll", 3, 0, 1000, 5)).toBe("commit");
    expect(endAfterPoll("poll", 0, undefined, 1000, 5)).toBeUndefined();
  });
  test("interval: once the open transaction is as old as the interval", () => {
    expect(endAfterPoll("interval", 3, 1000, 500, 1400)).toBeUndefined();
    expect(endAfterPoll("interval", 0, 1000, 500, 1500)).toBe("commit");
    expect(endAfterPoll("interval", 0, undefined, 500, 99999)).toBeUndefined();
  });
});

describe("exactly-once settings, as Kafka's distributed herder checks them", () => {
  class Plain extends SourceConnector {
    version = () => "1";
    start() {}
    taskClass = () => class {} as never;
    taskConfigs = () => [];
    stop() {}
    config = () => ({}) as never;
  }
  class Able extends Plain {
    override exactlyOnceSupport = () => "SUPPORTED" as const;
    override canDefineTransactionBoundaries = () => "SUPPORTED" as const;
  }
  class Unable extends Plain {
    override exactlyOnceSupport = () => "UNSUPPORTED" as const;
  }

  test("required: the worker must have it enabled, and the connector must say it supports it", () => {
    const required = { "exactly.once.support": "REQUIRED" };
    expect(exactlyOnceCheck(new Able(), required, true).problems).toEqual(new Map());
    expect(exactlyOnceCheck(new Able(), required, false).problems.get("exactly.once.support")).toEqual([
      "This worker does not have exactly-once source support enabled.",
    ]);
    expect(exactlyOnceCheck(new Unable(), required, true).problems.get("exactly.once.support")).toEqual([
      "The connector does not support exactly-once semantics with the provided configuration.",
    ]);
    expect(exactlyOnceCheck(new Plain(), required, true).problems.get("exactly.once.support")?.[0]).toStartWith(
      "The connector does not implement the API required for preflight validation of exactly-once source support.",
    );
    expect(exactlyOnceCheck(new Plain(), { "exactly.once.support": "requested" }, true).problems.size).toBe(0);
  });

  test("transaction.boundary=connector needs a connector that can define them", () => {
    expect(exactlyOnceCheck(new Able(), { "transaction.boundary": "connector" }, true).problems.size).toBe(0);
    expect(
      exactlyOnceCheck(new Unable(), { "transaction.boundary": "Connector" }, true).problems.get(
        "transaction.boundary",
      ),
    ).toHaveLength(1);
  });

  test("producer overrides a transactional producer cannot take are warned about on an exactly-once worker", () => {
    const config = { "producer.override.enable.idempotence": "false", "producer.override.acks": "1" };
    expect([...exactlyOnceCheck(new Able(), config, true).warnings.keys()]).toEqual([
      "producer.override.enable.idempotence",
      "producer.override.acks",
    ]);
    expect(exactlyOnceCheck(new Able(), config, false).warnings.size).toBe(0);
    expect(exactlyOnceCheck(new Able(), { "producer.override.acks": "all" }, true).warnings.size).toBe(0);
  });

  test("boundaries on a worker without exactly-once support are warned about, poll (the default) is not", () => {
    const { warnings } = exactlyOnceCheck(
      new Able(),
      { "transaction.boundary": "interval", "transaction.boundary.interval.ms": "100" },
      false,
    );
    expect([...warnings.keys()]).toEqual(["transaction.boundary", "transaction.boundary.interval.ms"]);
    expect(exactlyOnceCheck(new Able(), { "transaction.boundary": "poll" }, false).warnings.size).toBe(0);
  });
});
