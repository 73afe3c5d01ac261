import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { subjectName, subjectNameStrategy } from "#src/serde/config.ts";
import { SerializationException } from "#src/serde/errors.ts";
import { LruCache } from "#src/platform/lru.ts";
import { frame, unframe } from "#src/serde/wire-format.ts";

describe("wire format", () => {
  test("magic byte, big-endian id, prefix, payload", () => {
    const bytes = frame(258, new Uint8Array([9, 9]), new Uint8Array([0]));
    expect([...bytes]).toEqual([0, 0, 0, 1, 2, 0, 9, 9]);
    expect(unframe(bytes)).toEqual({ id: 258, offset: 5 });
  });

  test("round-trips any id and payload", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.uint8Array(), (id, payload) => {
        const bytes = frame(id, payload);
        const { id: back, offset } = unframe(bytes);
        return back === id && Buffer.from(bytes.subarray(offset)).equals(Buffer.from(payload));
      }),
    );
  });

  test("foreign bytes fail clearly", () => {
    expect(() => unframe(new Uint8Array([1, 0, 0, 0, 1]))).toThrow(
      new SerializationException("Unknown magic byte 1: not in the Confluent wire format"),
    );
    expect(() => unframe(new Uint8Array([0, 0, 0]))).toThrow(/Truncated message/);
  });
});

describe("subject name strategies", () => {
  test("short and Java class names", () => {
    expect(subjectNameStrategy("io.confluent.kafka.serializers.subject.RecordNameStrategy")).toBe("RecordNameStrategy");
    expect(subjectNameStrategy("Nope")).toBeUndefined();
    expect(subjectName("TopicNameStrategy", "orders", false, () => "x")).toBe("orders-value");
    expect(subjectName("TopicNameStrategy", "orders", true, () => "x")).toBe("orders-key");
    expect(subjectName("RecordNameStrategy", "orders", false, () => "shop.Order")).toBe("shop.Order");
    expect(subjectName("TopicRecordNameStrategy", "orders", false, () => "shop.Order")).toBe("orders-shop.Order");
    expect(() => subjectName("RecordNameStrategy", "orders", false, () => undefined)).toThrow(SerializationException);
  });
});

describe("LRU cache", () => {
  test("bounded, least recently used goes first", () => {
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.get("a");
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(1);
    expect(cache.size).toBe(2);
  });

  test("concurrent identical loads share one call; failures are not cached", async () => {
    const cache = new LruCache<string, number>(10);
    const inFlight = new Map<string, Promise<number>>();
    let calls = 0;
    const load = async () => {
      calls++;
      await Promise.resolve();
      return 42;
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.getOrLoad("k", inFlight, load)));
    expect(results).toEqual(Array(10).fill(42));
    expect(calls).toBe(1);
    await expect(cache.getOrLoad("bad", inFlight, () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(await cache.getOrLoad("bad", inFlight, async () => 7)).toBe(7);
  });
});
