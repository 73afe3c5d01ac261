import { describe, expect, test } from "bun:test";
import { parsePostgresCdcConfig } from "#src/connectors/postgres-cdc/config.ts";
import { collectionsFromJson, collectionsToJson } from "#src/connectors/postgres-cdc/incremental-snapshot.ts";
import {
  decodeKey,
  encodeKey,
  javaKindOf,
  KeyDecodingError,
} from "#src/connectors/postgres-cdc/incremental-snapshot-key.ts";
import {
  ChunkWindow,
  chunkQuery,
  maximumKeyQuery,
  windowKey,
} from "#src/connectors/postgres-cdc/incremental-snapshot-query.ts";
import { signalOfRow } from "#src/connectors/postgres-cdc/signals/source-channel.ts";

// ObjectOutputStream's bytes of `new Object[] { Integer.valueOf(100000) }`, as Debezium stores a key
// (the side-by-side test checks Sluice's maximum key against Debezium's, byte for byte).
const INTEGER_100000 =
  "aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c0200007870000000017372" +
  "00116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565787200106a617661" +
  "2e6c616e672e4e756d62657286ac951d0b94e08b0200007870000186a0";

describe("incremental snapshot keys in the offsets", () => {
  test("an int key is a Java Object[] of one Integer", () => {
    expect(encodeKey([{ kind: "Integer", text: "100000" }])).toBe(INTEGER_100000);
    expect(decodeKey(INTEGER_100000)).toEqual([{ kind: "Integer", text: "100000" }]);
  });

  test("composite keys: the second Integer refers back to the class written first", () => {
    const key = [
      { kind: "Integer", text: "-7" },
      { kind: "Integer", text: "2147483647" },
      { kind: "Long", text: "-9223372036854775808" },
      { kind: "String", text: "héllo ☃" },
      { kind: "UUID", text: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" },
      { kind: "String", text: null },
    ] as const;
    const hex = encodeKey(key);
    // Integer's class is described once; the second Integer is a reference to it (TC_REFERENCE 0x71).
    expect(hex.split("6a6176612e6c616e672e496e7465676572").length).toBe(2);
    expect(hex).toContain("737100");
    expect(decodeKey(hex)).toEqual([...key]);
  });

  test("no key yet (before the first row is sent) is Java's serialized null", () => {
    expect(encodeKey(null)).toBe("aced000570");
    expect(decodeKey("aced000570")).toBeNull();
  });

  test("the Java class of a key column follows PgJDBC", () => {
    expect([21, 23, 20, 2950, 25, 1043, 1700].map((oid) => javaKindOf(oid).kind)).toEqual([
      "Integer",
      "Integer",
      "Long",
      "UUID",
      "String",
      "String",
      "BigDecimal",
    ]);
  });

  test("what is not a serialized array is refused", () => {
    expect(() => decodeKey("00")).toThrow(KeyDecodingError);
    expect(() => decodeKey(INTEGER_100000.slice(0, 40))).toThrow(KeyDecodingError);
  });

  test("the tables to snapshot as Debezium's JSON", () => {
    const collections = [
      { id: "public.a", condition: "", surrogateKey: "", correlationId: "signal-1" },
      { id: "s.b", condition: "color = 'blue'", surrogateKey: "uid", correlationId: null },
    ];
    const json = collectionsToJson(collections);
    expect(JSON.parse(json)).toEqual([
      {
        incremental_snapshot_collections_id: "public.a",
        incremental_snapshot_collections_additional_condition: null,
        incremental_snapshot_collections_surrogate_key: null,
        incremental_snapshot_collections_correlation_id: "signal-1",
      },
      {
        incremental_snapshot_collections_id: "s.b",
        incremental_snapshot_collections_additional_condition: "color = 'blue'",
        incremental_snapshot_collections_surrogate_key: "uid",
        incremental_snapshot_collections_correlation_id: null,
      },
    ]);
    // Keys in Debezium's order.
    expect(Object.keys(JSON.parse(json)[0])).toEqual([
      "incremental_snapshot_collections_id",
      "incremental_snapshot_collections_additional_condition",
      "incremental_snapshot_collections_surrogate_key",
      "incremental_snapshot_collections_correlation_id",
    ]);
    expect(collectionsFromJson(json)).toEqual(collections);
  });
});

describe("chunk queries", () => {
  const table = { schema: "public", table: "t", columns: ["id", "v"], keyColumns: ["id"], condition: "" };

  test("the first chunk of a table has no key bounds", () => {
    expect(chunkQuery(table, 1024, null, ["100"])).toBe(`SELECT "id", "v" FROM "public"."t" ORDER BY "id" LIMIT 1024`);
  });

  test("later chunks: after the last key read, not after the maximum key, with the additional condition", () => {
    expect(chunkQuery({ ...table, condition: "v <> 'x'" }, 10, ["5"], ["it's"])).toBe(
      `SELECT "id", "v" FROM "public"."t" WHERE ("id" > '5') AND NOT ("id" > 'it''s') AND v <> 'x' ORDER BY "id" LIMIT 10`,
    );
  });

  test("composite keys bound each column after the equal ones before it", () => {
    expect(chunkQuery({ ...table, keyColumns: ["a", "b"] }, 5, ["1", "2"], ["9", "9"])).toBe(
      `SELECT "id", "v" FROM "public"."t" WHERE (("a" > '1') OR ("a" = '1' AND "b" > '2')) AND NOT (("a" > '9') OR ("a" = '9' AND "b" > '9')) ORDER BY "a", "b" LIMIT 5`,
    );
  });

  test("the maximum key: the last row in key order, within the additional condition", () => {
    expect(maximumKeyQuery({ ...table, keyColumns: ["a", "b"], condition: "v = 'y'" })).toBe(
      `SELECT "id", "v" FROM "public"."t" WHERE v = 'y' ORDER BY "a" DESC, "b" DESC LIMIT 1`,
    );
  });
});

describe("the chunk's window", () => {
  test("a key changed while the window is open drops its row; the rest come in key order", () => {
    const window = new ChunkWindow<string>();
    for (const id of ["1", "2", "3"]) window.put(windowKey([id]), `row ${id}`);
    expect(window.remove(windowKey(["2"]))).toBe(true);
    expect(window.remove(windowKey(["4"]))).toBe(false);
    expect(window.drain()).toEqual(["row 1", "row 3"]);
    expect(window.size).toBe(0);
  });

  test("keys are told apart by all their columns", () => {
    expect(windowKey(["1", "23"])).not.toBe(windowKey(["12", "3"]));
    expect(windowKey([null])).not.toBe(windowKey(["null"]));
  });
});

describe("signals from the signalling table", () => {
  test("a row's three columns are id, type and data, whatever their names", () => {
    expect(signalOfRow(["k", "t", "d"], ["s1", "execute-snapshot", '{"data-collections":["a.b"]}'])).toEqual({
      id: "s1",
      type: "execute-snapshot",
      data: { "data-collections": ["a.b"] },
      channel: "source",
    });
    expect(signalOfRow(["id", "type", "data"], ["s2", "pause-snapshot", null])).toEqual({
      id: "s2",
      type: "pause-snapshot",
      data: null,
      channel: "source",
    });
  });

  test("rows that hold no signal are ignored", () => {
    expect(signalOfRow(["id", "type"], ["x", "log"])).toBeNull();
    expect(signalOfRow(["id", "type", "data"], ["x", "log", "{not json"])).toBeNull();
  });
});

describe("signal and incremental snapshot settings", () => {
  const base = { "database.hostname": "db", "database.user": "cdc", "database.dbname": "app", "topic.prefix": "p" };

  test("Debezium's defaults: the source channel, chunks of 1024 rows, no signalling table", () => {
    const config = parsePostgresCdcConfig(base);
    expect(config.signalTable).toBeNull();
    expect([...config.signals.channels]).toEqual(["source"]);
    expect(config.incrementalChunkSize).toBe(1024);
  });

  test("the signalling table as schema.table (public when no schema is named)", () => {
    expect(parsePostgresCdcConfig({ ...base, "signal.data.collection": "ops.signals" }).signalTable).toEqual({
      schema: "ops",
      table: "signals",
    });
    expect(parsePostgresCdcConfig({ ...base, "signal.data.collection": "signals" }).signalTable).toEqual({
      schema: "public",
      table: "signals",
    });
  });
});
