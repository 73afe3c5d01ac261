import { describe, expect, test } from "bun:test";
import {
  crc32c,
  createRecordsBatch,
  NumericMap,
  Reader,
  readRecordsBatch,
  type MessageRecord,
} from "@platformatic/kafka";
import type { FetchedRecord } from "#src/broker/broker.ts";
import {
  controlTypeOf,
  CorruptBatchError,
  encodeRecordBatch,
  pushRecords,
  readRecordBatches,
} from "#src/broker/kafka/record-batch.ts";

const T0 = 1_764_000_000_000n;

function message(over: Partial<MessageRecord> = {}): MessageRecord {
  return { topic: "t", partition: 0, key: Buffer.from("k"), value: Buffer.from("v"), timestamp: T0, ...over };
}

/** The Kafka client's own batch of the same messages, with Kafka's "no leader epoch" as ours writes it. */
function libraryBatch(messages: MessageRecord[], producerId: bigint, epoch: number, sequence: number, txn = false) {
  const sequences = new NumericMap();
  sequences.set("t:0", sequence);
  const batch = createRecordsBatch(messages, {
    producerId,
    producerEpoch: epoch,
    sequences,
    ...(txn ? { transactionalId: "tx" } : {}),
  }).buffer;
  batch.writeInt32BE(-1, 12);
  return batch;
}

describe("encodeRecordBatch", () => {
  const cases: [string, MessageRecord[]][] = [
    ["one record", [message()]],
    [
      "null keys and values, empty buffers",
      [message({ key: undefined }), message({ value: null as unknown as Buffer }), message({ key: Buffer.alloc(0) })],
    ],
    [
      "lengths that take two and three varint bytes",
      [
        message({ value: Buffer.alloc(64, 1) }),
        message({ value: Buffer.alloc(300, 2) }),
        message({ value: Buffer.alloc(20_000, 3) }),
      ],
    ],
    [
      "headers: a repeated name, a null value, none",
      [
        message({
          headers: new Map([
            [Buffer.from("a"), Buffer.from("1")],
            [Buffer.from("a"), Buffer.from("2")],
            [Buffer.from("n"), null as unknown as Buffer],
          ]),
        }),
        message({ headers: new Map() }),
        message(),
      ],
    ],
    [
      "timestamps out of order, before the first and after it",
      [
        message(),
        message({ timestamp: T0 - 5n }),
        message({ timestamp: T0 + 100_000_000n }),
        message({ timestamp: T0 + 1n }),
      ],
    ],
    [
      "700 records (offset deltas past one varint byte)",
      Array.from({ length: 700 }, (_, i) => message({ value: Buffer.alloc(i % 50, i) })),
    ],
  ];
  for (const [name, messages] of cases) {
    test(`${name}: the same bytes as the Kafka client's`, () => {
      const ours = encodeRecordBatch(messages, {
        producerId: 4242n,
        producerEpoch: 3,
        firstSequence: 17,
        transactional: false,
      });
      expect(ours.equals(libraryBatch(messages, 4242n, 3, 17))).toBe(true);
    });
  }

  test("a transactional batch carries the attribute, and the client reads back what was written", () => {
    const messages = [
      message({ headers: new Map([[Buffer.from("h"), Buffer.from("x")]]) }),
      message({ key: undefined, timestamp: T0 + 7n }),
    ];
    const ours = encodeRecordBatch(messages, {
      producerId: 9n,
      producerEpoch: 0,
      firstSequence: 0,
      transactional: true,
    });
    expect(ours.equals(libraryBatch(messages, 9n, 0, 0, true))).toBe(true);
    const batch = readRecordsBatch(Reader.from(ours));
    expect(batch.attributes).toBe(0x10);
    expect(batch.producerId).toBe(9n);
    expect(batch.maxTimestamp).toBe(T0 + 7n);
    expect(batch.lastOffsetDelta).toBe(1);
    expect(batch.records[0]!.headers.map(([k, v]) => [String(k), String(v)])).toEqual([["h", "x"]]);
    expect(batch.records[1]!.key).toBeNull();
    expect(batch.records[1]!.timestampDelta).toBe(7n);
  });

  test("a timestamp 2^33 ms after the first: a delta past 32 bits, as Kafka's varlong holds it", () => {
    // (The Kafka client's own writer gets this one wrong by 2: its varlong loses bits past 32.)
    const far = T0 + 10_000_000_000n;
    const ours = encodeRecordBatch([message(), message({ timestamp: far })], {
      producerId: -1n,
      producerEpoch: 0,
      firstSequence: 0,
      transactional: false,
    });
    const batch = readRecordsBatch(Reader.from(ours));
    expect(batch.records[1]!.timestampDelta).toBe(10_000_000_000n);
    expect(batch.maxTimestamp).toBe(far);
  });

  test("a message without a timestamp takes the batch's write time", () => {
    const ours = encodeRecordBatch(
      [message({ timestamp: undefined })],
      { producerId: -1n, producerEpoch: 0, firstSequence: 0, transactional: false },
      1234,
    );
    expect(readRecordsBatch(Reader.from(ours)).firstTimestamp).toBe(1234n);
  });
});

describe("readRecordBatches and pushRecords", () => {
  const writer = { producerId: 7n, producerEpoch: 0, firstSequence: 0, transactional: false };
  const messages = [
    message({
      headers: new Map([
        [Buffer.from("a"), Buffer.from("1")],
        [Buffer.from("a"), Buffer.from("2")],
        [Buffer.from("n"), null as unknown as Buffer],
      ]),
    }),
    message({ key: undefined, value: null as unknown as Buffer, timestamp: T0 - 3n }),
    message({ value: Buffer.alloc(20_000, 9), timestamp: T0 + 10_000_000_000n }),
  ];

  /** A batch as the broker stores it: the base offset it assigned. */
  function stored(bytes: Buffer, baseOffset: number): Buffer {
    bytes.writeBigInt64BE(BigInt(baseOffset), 0);
    return bytes;
  }

  test("the records come back as written, with their offsets, timestamps and headers in order", () => {
    const bytes = Buffer.concat([
      stored(encodeRecordBatch(messages, writer), 40),
      stored(encodeRecordBatch([message()], writer), 43),
    ]);
    const batches = readRecordBatches(bytes);
    expect(batches.map((b) => [b.baseOffset, b.count, b.producerId])).toEqual([
      [40, 3, 7n],
      [43, 1, 7n],
    ]);
    const out: FetchedRecord[] = [];
    for (const b of batches) pushRecords(out, "t", 2, 41, b);
    expect(
      out.map((r) => [r.offset, r.timestamp, r.key === null ? null : String(r.key), r.value?.length ?? null]),
    ).toEqual([
      [41, Number(T0) - 3, null, null],
      [42, Number(T0) + 10_000_000_000, "k", 20_000],
      [43, Number(T0), "k", 1],
    ]);
    expect(out.every((r) => r.topic === "t" && r.partition === 2)).toBe(true);
    expect(Buffer.isBuffer(out[1]!.value)).toBe(true);
    const first: FetchedRecord[] = [];
    pushRecords(first, "t", 0, 0, batches[0]!);
    expect(first[0]!.headers.map((h) => [h.key, h.value === null ? null : String(h.value)])).toEqual([
      ["a", "1"],
      ["a", "2"],
      ["n", null],
    ]);
    expect(first[1]!.headers).toEqual([]);
  });

  test("what is read is a copy: the response's buffer can be reused", () => {
    const bytes = stored(encodeRecordBatch([message()], writer), 0);
    const out: FetchedRecord[] = [];
    pushRecords(out, "t", 0, 0, readRecordBatches(bytes)[0]!);
    bytes.fill(0);
    expect(String(out[0]!.value)).toBe("v");
  });

  test("a batch cut short at the fetch's byte limit is left for the next fetch", () => {
    const whole = stored(encodeRecordBatch([message()], writer), 0);
    const bytes = Buffer.concat([whole, stored(encodeRecordBatch(messages, writer), 1)]);
    expect(readRecordBatches(bytes.subarray(0, bytes.length - 1)).map((b) => b.baseOffset)).toEqual([0]);
    expect(readRecordBatches(bytes.subarray(0, 30))).toEqual([]);
  });

  test("compressed batches (the Kafka client's gzip, snappy, lz4, zstd) are read", () => {
    for (const compression of ["gzip", "snappy", "lz4", "zstd"] as const) {
      const bytes = createRecordsBatch(messages, { compression }).buffer;
      const [batch] = readRecordBatches(bytes);
      const out: FetchedRecord[] = [];
      pushRecords(out, "t", 0, 0, batch!);
      expect(out.map((r) => r.value?.length ?? null)).toEqual([1, null, 20_000]);
    }
  });

  test("log-append time: every record carries the batch's max timestamp", () => {
    const bytes = encodeRecordBatch(messages, writer);
    bytes.writeInt16BE(0x08, 21); // as a topic with message.timestamp.type=LogAppendTime stores it
    bytes.writeBigInt64BE(123n, 35);
    bytes.writeUInt32BE(crc32c(bytes.subarray(21)), 17); // and the broker computes the CRC again
    const out: FetchedRecord[] = [];
    pushRecords(out, "t", 0, 0, readRecordBatches(bytes)[0]!);
    expect(out.map((r) => r.timestamp)).toEqual([123, 123, 123]);
  });

  test("a batch whose bytes do not match its CRC-32C ends the batches read, and fails a read that starts at it", () => {
    for (const compression of ["none", "gzip"] as const) {
      const good = createRecordsBatch(messages, { compression }).buffer;
      good.writeBigInt64BE(40n, 0); // base offset
      const damaged = Buffer.concat([good, good]);
      damaged[good.length + good.length - 3]! ^= 0x01; // one bit of the second batch's last bytes
      // The batch before it is read; read from the damaged one, the read fails.
      expect(readRecordBatches(damaged)).toHaveLength(1);
      const rest = damaged.subarray(good.length);
      expect(() => readRecordBatches(rest)).toThrow(
        new CorruptBatchError(40, rest.readUInt32BE(17), crc32c(rest.subarray(21))),
      );
    }
  });

  test("a control batch's type: 0 for an abort marker, 1 for a commit", () => {
    for (const type of [0, 1]) {
      const key = Buffer.alloc(4);
      key.writeInt16BE(type, 2);
      const bytes = encodeRecordBatch([message({ key, value: Buffer.alloc(6) })], { ...writer, transactional: true });
      expect(controlTypeOf(readRecordBatches(bytes)[0]!)).toBe(type);
    }
  });
});
