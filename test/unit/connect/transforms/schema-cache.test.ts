import { describe, expect, test } from "bun:test";
import { SchemaBuilder } from "#src/connect/api/data/index.ts";
import { SchemaCache } from "#src/connect/transforms/schema-cache.ts";

const struct = (field: string) => SchemaBuilder.struct().field(field, SchemaBuilder.int32().build()).build();

describe("SchemaCache", () => {
  test("finds an entry by identity or by Schema.equals", () => {
    const cache = new SchemaCache<string>();
    cache.put(struct("a"), "A");
    expect(cache.get(struct("a"))).toBe("A");
    expect(cache.get(struct("b"))).toBeUndefined();
  });

  test("forgets the least recently used entry beyond its capacity; a look-up by an equal schema counts as use", () => {
    const cache = new SchemaCache<string>(2);
    const a = struct("a");
    cache.put(a, "A");
    cache.put(struct("b"), "B");
    expect(cache.get(struct("a"))).toBe("A");
    cache.put(struct("c"), "C");
    expect(cache.size).toBe(2);
    expect(cache.get(a)).toBe("A");
    expect(cache.get(struct("b"))).toBeUndefined();
    expect(cache.getOrCompute(struct("b"), () => "B2")).toBe("B2");
    expect(cache.get(struct("c"))).toBeUndefined();
  });
});
