import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { formatLsn, parseLsn } from "#src/connectors/postgres-cdc/lsn.ts";

describe("LSN", () => {
  test("parses and prints the server's %X/%X form", () => {
    expect(parseLsn("16/B374D848")).toBe(0x16b374d848n);
    expect(parseLsn("0/0")).toBe(0n);
    expect(parseLsn("0/16b3748")).toBe(0x16b3748n);
    expect(parseLsn("FFFFFFFF/FFFFFFFF")).toBe(0xffffffffffffffffn);
    expect(formatLsn(0x16b374d848n)).toBe("16/B374D848");
    expect(formatLsn(0n)).toBe("0/0");
    expect(formatLsn(0x100000000n)).toBe("1/0");
  });

  test("rejects what is not an LSN", () => {
    for (const bad of ["", "16", "16/", "/1", "G/1", "123456789/0", "1/2/3", " 1/2"])
      expect(() => parseLsn(bad)).toThrow(SyntaxError);
    expect(() => formatLsn(-1n)).toThrow(RangeError);
    expect(() => formatLsn(1n << 64n)).toThrow(RangeError);
  });

  test("format and parse are inverse over the 64-bit range", () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (lsn) => parseLsn(formatLsn(lsn)) === lsn));
  });
});
