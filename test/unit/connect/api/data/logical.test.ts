import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BigDecimal } from "#src/jvm/big-decimal.ts";
import { DataException } from "#src/connect/api/data/errors.ts";
import {
  ConnectDate,
  Decimal,
  fromTwosComplement,
  Time,
  Timestamp,
  twosComplementBytes,
} from "#src/connect/api/data/logical.ts";
import { Schema, SchemaBuilder } from "#src/connect/api/data/schema.ts";

describe("Decimal", () => {
  test("schema as Kafka builds it", () => {
    const s = Decimal.schema(2);
    expect(s.type).toBe("BYTES");
    expect(s.name).toBe("org.apache.kafka.connect.data.Decimal");
    expect(s.version).toBe(1);
    expect([...s.parameters!]).toEqual([["scale", "2"]]);
    expect(Decimal.builder(2).optional().build().optional).toBe(true);
  });

  test("bytes are BigInteger.toByteArray of the unscaled value", () => {
    const cases: [bigint, number[]][] = [
      [0n, [0]],
      [1n, [1]],
      [127n, [0x7f]],
      [128n, [0x00, 0x80]],
      [255n, [0x00, 0xff]],
      [256n, [0x01, 0x00]],
      [-1n, [0xff]],
      [-128n, [0x80]],
      [-129n, [0xff, 0x7f]],
      [-32768n, [0x80, 0x00]],
      [32768n, [0x00, 0x80, 0x00]],
    ];
    for (const [unscaled, bytes] of cases) {
      expect([...Decimal.fromLogical(Decimal.schema(3), new BigDecimal(unscaled, 3))]).toEqual(bytes);
      expect(Decimal.toLogical(Decimal.schema(3), new Uint8Array(bytes)).equals(new BigDecimal(unscaled, 3))).toBe(
        true,
      );
    }
  });

  test("round-trips any value (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }),
        fc.integer({ min: -20, max: 40 }),
        (unscaled, scale) => {
          const schema = Decimal.schema(scale);
          const bytes = Decimal.fromLogical(schema, new BigDecimal(unscaled, scale));
          // Minimal: dropping the first byte would change the value.
          const minimal = bytes.length === 1 || fromTwosComplement(bytes.subarray(1)) !== unscaled;
          return (
            minimal &&
            Decimal.toLogical(schema, bytes).equals(new BigDecimal(unscaled, scale)) &&
            twosComplementBytes(unscaled).length === bytes.length
          );
        },
      ),
    );
  });

  test("errors with Kafka's messages", () => {
    expect(() => Decimal.fromLogical(Decimal.schema(2), new BigDecimal(1n, 1))).toThrow(
      new DataException(
        "Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, value has scale 1.",
      ),
    );
    const noScale = SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).build();
    expect(() => Decimal.toLogical(noScale, new Uint8Array([1]))).toThrow(
      new DataException("Invalid Decimal schema: scale parameter not found."),
    );
    const badScale = SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).parameter("scale", "2.5").build();
    expect(() => Decimal.toLogical(badScale, new Uint8Array([1]))).toThrow(
      new DataException("Invalid scale parameter found in Decimal schema: "),
    );
    expect(() => Decimal.toLogical(Decimal.schema(1), new Uint8Array())).toThrow(DataException);
  });
});

describe("Date, Time, Timestamp", () => {
  test("schemas", () => {
    expect([ConnectDate.SCHEMA.type, ConnectDate.SCHEMA.name, ConnectDate.SCHEMA.version]).toEqual([
      "INT32",
      "org.apache.kafka.connect.data.Date",
      1,
    ]);
    expect([Time.SCHEMA.type, Time.SCHEMA.name]).toEqual(["INT32", "org.apache.kafka.connect.data.Time"]);
    expect([Timestamp.SCHEMA.type, Timestamp.SCHEMA.name]).toEqual([
      "INT64",
      "org.apache.kafka.connect.data.Timestamp",
    ]);
    expect(ConnectDate.builder().optional().build().optional).toBe(true);
  });

  test("Date: days since the epoch at UTC midnight", () => {
    expect(ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(Date.UTC(2024, 1, 29)))).toBe(19782);
    expect(ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(Date.UTC(1969, 11, 31)))).toBe(-1);
    expect(ConnectDate.toLogical(ConnectDate.SCHEMA, 19782).toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(() => ConnectDate.fromLogical(ConnectDate.SCHEMA, new Date(Date.UTC(2024, 1, 29, 0, 0, 0, 1)))).toThrow(
      new DataException("Kafka Connect Date type should not have any time fields set to non-zero values."),
    );
    expect(() => ConnectDate.fromLogical(Schema.INT32_SCHEMA, new Date(0))).toThrow(
      new DataException("Requested conversion of Date object but the schema does not match."),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -1e8, max: 1e8 }),
        (days) => ConnectDate.fromLogical(ConnectDate.SCHEMA, ConnectDate.toLogical(ConnectDate.SCHEMA, days)) === days,
      ),
    );
  });

  test("Time: milliseconds of the day", () => {
    expect(Time.fromLogical(Time.SCHEMA, new Date(3_600_000))).toBe(3_600_000);
    expect(Time.fromLogical(Time.SCHEMA, new Date(86_400_000))).toBe(86_400_000);
    expect(() => Time.fromLogical(Time.SCHEMA, new Date(86_400_001))).toThrow(
      new DataException("Kafka Connect Time type should not have any date fields set to non-zero values."),
    );
    expect(() => Time.fromLogical(Time.SCHEMA, new Date(-1))).toThrow(DataException);
    expect(() => Time.toLogical(Time.SCHEMA, -1)).toThrow(
      new DataException("Time values must use number of milliseconds greater than 0 and less than 86400000"),
    );
    expect(() => Time.toLogical(Schema.INT32_SCHEMA, 1)).toThrow(
      new DataException("Requested conversion of Date object but the schema does not match."),
    );
    expect(() => Time.fromLogical(Schema.INT32_SCHEMA, new Date(1))).toThrow(
      new DataException("Requested conversion of Time object but the schema does not match."),
    );
  });

  test("Timestamp: epoch milliseconds as bigint", () => {
    expect(Timestamp.fromLogical(Timestamp.SCHEMA, new Date(-5))).toBe(-5n);
    expect(Timestamp.toLogical(Timestamp.SCHEMA, 1_700_000_000_000n).getTime()).toBe(1_700_000_000_000);
    expect(() => Timestamp.toLogical(Timestamp.SCHEMA, 2n ** 62n)).toThrow(DataException);
    expect(() => Timestamp.fromLogical(Schema.INT64_SCHEMA, new Date(1))).toThrow(
      new DataException("Requested conversion of Timestamp object but the schema does not match."),
    );
    expect(() => Timestamp.fromLogical(Timestamp.SCHEMA, new Date(NaN))).toThrow(DataException);
  });
});
