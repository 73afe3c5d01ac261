import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  JavaNumberFormatError,
  javaDoubleToString,
  javaFloatToString,
  javaParseDouble,
  javaParseInteger,
} from "#src/jvm/java-numbers.ts";

const bitsToDouble = (hex: string) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
};
const bitsToFloat = (hex: string) => {
  const view = new DataView(new ArrayBuffer(4));
  view.setUint32(0, Number.parseInt(hex, 16));
  return view.getFloat32(0);
};

// Expected strings are what Double.toString / Float.toString print on JDK 25 (Temurin) for the same
// bit patterns; JDK 19+ all agree (JDK 17 and older print a few of them differently, e.g. 1.0E23).
describe("Double.toString", () => {
  test("Java's output at the edges", () => {
    const cases: [string, string][] = [
      ["0000000000000001", "4.9E-324"], // Double.MIN_VALUE
      ["8000000000000001", "-4.9E-324"],
      ["0000000000000002", "9.9E-324"],
      ["0000000000000003", "1.5E-323"],
      ["000fffffffffffff", "2.225073858507201E-308"], // largest subnormal
      ["0010000000000000", "2.2250738585072014E-308"], // Double.MIN_NORMAL
      ["7fefffffffffffff", "1.7976931348623157E308"], // Double.MAX_VALUE
      ["ffefffffffffffff", "-1.7976931348623157E308"],
      ["416312d000000000", "1.0E7"],
      ["416312cfffffffff", "9999999.999999998"], // the double just below 1e7
      ["416312cfe0000000", "9999999.0"],
      ["3f50624dd2f1a9fc", "0.001"],
      ["3f50624dd2f1a9fb", "9.999999999999998E-4"], // the double just below 1e-3
      ["3f50624dd2f1a9fd", "0.0010000000000000002"],
      ["3f1a36e2eb1c432d", "1.0E-4"],
      ["3fb999999999999a", "0.1"],
      ["3fd3333333333333", "0.3"],
      ["4059000000000000", "100.0"],
      ["4202a05f20000000", "1.0E10"],
      ["4480f0cf064dd592", "1.0E22"],
      ["44b52d02c7e14af6", "1.0E23"],
      ["44c52d02c7e14af6", "2.0E23"],
      ["437b69b4ba630f35", "1.2345678901234568E17"],
      ["0000000000000000", "0.0"],
      ["8000000000000000", "-0.0"],
      ["7ff8000000000000", "NaN"],
      ["7ff0000000000000", "Infinity"],
      ["fff0000000000000", "-Infinity"],
    ];
    for (const [bits, text] of cases) expect([bits, javaDoubleToString(bitsToDouble(bits))]).toEqual([bits, text]);
  });

  test("layout and digits of ordinary values", () => {
    const cases: [number, string][] = [
      [1, "1.0"],
      [-2.5, "-2.5"],
      [1e-7, "1.0E-7"],
      [12345678.9, "1.23456789E7"],
      [1e21, "1.0E21"],
      [123456.789, "123456.789"],
      [1 / 3, "0.3333333333333333"],
      [2 ** 53, "9.007199254740992E15"],
      [-1.5e-10, "-1.5E-10"],
    ];
    for (const [d, text] of cases) expect(javaDoubleToString(d)).toBe(text);
  });

  test("reads back as the same double (property)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) =>
        Object.is(Number(javaDoubleToString(d)), d),
      ),
    );
  });
});

describe("Float.toString", () => {
  test("Java's output at the edges", () => {
    const cases: [string, string][] = [
      ["00000001", "1.4E-45"], // Float.MIN_VALUE
      ["80000001", "-1.4E-45"],
      ["00000002", "2.8E-45"],
      ["00000003", "4.2E-45"],
      ["007fffff", "1.1754942E-38"], // largest subnormal
      ["00800000", "1.1754944E-38"], // Float.MIN_NORMAL
      ["7f7fffff", "3.4028235E38"], // Float.MAX_VALUE
      ["4b189680", "1.0E7"],
      ["4b18967f", "9999999.0"], // the float just below 1e7
      ["3a83126f", "0.001"],
      ["3a83126e", "9.999999E-4"], // the float just below 1e-3
      ["38d1b717", "1.0E-4"],
      ["3dcccccd", "0.1"], // 0.1f
      ["3e99999a", "0.3"],
      ["3f8ccccd", "1.1"],
      ["4048f5c3", "3.14"],
      ["3eaaaaab", "0.33333334"],
      ["3b03126f", "0.002"],
      ["4b800000", "1.6777216E7"],
      ["4c000000", "3.3554432E7"],
      ["501502f9", "1.0E10"], // 1.0E10f
      ["4fee6b28", "8.0E9"],
      ["49f5bdaa", "2013109.2"], // ties between two shortest forms: the nearest wins
      ["46a26e20", "20791.062"],
      ["00000000", "0.0"],
      ["80000000", "-0.0"],
      ["7fc00000", "NaN"],
      ["7f800000", "Infinity"],
      ["ff800000", "-Infinity"],
    ];
    for (const [bits, text] of cases) expect([bits, javaFloatToString(bitsToFloat(bits))]).toEqual([bits, text]);
  });

  test("a double argument is first rounded to float", () => {
    expect(javaFloatToString(0.1)).toBe("0.1");
    expect(javaFloatToString(1 / 3)).toBe("0.33333334");
    expect(javaFloatToString(3e10)).toBe("3.0E10");
    expect(javaFloatToString(2660952.25)).toBe("2660952.2");
    expect(javaFloatToString(18800.0625)).toBe("18800.062");
  });

  test("reads back as the same float and no shorter form would (property)", () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => {
        const text = javaFloatToString(f);
        if (!Object.is(Math.fround(Number(text)), f)) return false;
        const significant = text
          .replace(/^-/, "")
          .replace(/E.*/, "")
          .replace(".", "")
          .replace(/^0+/, "")
          .replace(/0+$/, "");
        // Java weighs 2-digit forms against 1-digit ones, so only longer forms must be minimal.
        if (significant.length <= 2) return true;
        // One digit less, rounded either way, must not read back as f.
        const shorter = Math.abs(f).toPrecision(significant.length - 1);
        return Math.fround(Number(shorter)) !== Math.abs(f);
      }),
    );
  });
});

// Double.parseDouble's results and NumberFormatException messages on JDK 17+ (FloatingDecimal.readJavaFormatString).
describe("Double.parseDouble", () => {
  const failure = (text: string) => {
    try {
      javaParseDouble(text);
    } catch (e) {
      expect(e).toBeInstanceOf(JavaNumberFormatError);
      return (e as Error).message;
    }
    throw new Error(`${JSON.stringify(text)} parsed`);
  };

  test("decimal literals with a sign, an exponent and an f/F/d/D suffix", () => {
    expect(javaParseDouble("1.5")).toBe(1.5);
    expect(javaParseDouble("+1.")).toBe(1);
    expect(javaParseDouble("-.5e1")).toBe(-5);
    expect(javaParseDouble("007")).toBe(7);
    expect(javaParseDouble("2.5f")).toBe(2.5);
    expect(javaParseDouble("1E3D")).toBe(1000);
    expect(javaParseDouble("1e400")).toBe(Infinity);
    expect(javaParseDouble("1e-400")).toBe(0);
    expect(Object.is(javaParseDouble("-0"), -0)).toBe(true);
    expect(javaParseDouble("0.1")).toBe(0.1);
    expect(javaParseDouble("4.9E-324")).toBe(Number.MIN_VALUE);
  });

  test("NaN and Infinity, signed, without suffix", () => {
    expect(javaParseDouble("NaN")).toBeNaN();
    expect(javaParseDouble("-NaN")).toBeNaN();
    expect(javaParseDouble("+Infinity")).toBe(Infinity);
    expect(javaParseDouble("-Infinity")).toBe(-Infinity);
    expect(failure("Infinityd")).toBe('For input string: "Infinityd"');
    expect(failure("nan")).toBe('For input string: "nan"');
    expect(failure("inf")).toBe('For input string: "inf"');
  });

  test("trims as String.trim does: control chars, not Unicode spaces", () => {
    expect(javaParseDouble(" \t1.5\n\u0000")).toBe(1.5);
    expect(javaParseDouble(" -Infinity ")).toBe(-Infinity);
    expect(failure("\u00a01.5")).toBe('For input string: "\u00a01.5"');
  });

  test("Java's messages: empty String, multiple points, else the trimmed input quoted", () => {
    expect(failure("")).toBe("empty String");
    expect(failure(" \t ")).toBe("empty String");
    expect(failure(" abc ")).toBe('For input string: "abc"');
    expect(failure("1.2.3")).toBe("multiple points");
    expect(failure("-..")).toBe("multiple points");
    expect(failure("1.2e3.4")).toBe('For input string: "1.2e3.4"');
    expect(failure("1e")).toBe('For input string: "1e"');
    expect(failure(".")).toBe('For input string: "."');
    expect(failure("+")).toBe('For input string: "+"');
    expect(failure("1_000")).toBe('For input string: "1_000"');
    expect(failure("1.5ff")).toBe('For input string: "1.5ff"');
  });
});

describe("Integer.parseInt and its byte, short and long siblings", () => {
  test("an optional sign and ASCII digits, in the type's range", () => {
    expect(javaParseInteger("+007", 32)).toBe(7n);
    expect(javaParseInteger("-128", 8)).toBe(-128n);
    expect(javaParseInteger("32767", 16)).toBe(32767n);
    expect(javaParseInteger("-9223372036854775808", 64)).toBe(-(2n ** 63n));
  });

  test("anything else throws Java's NumberFormatException message", () => {
    for (const [text, width] of [
      ["128", 8],
      ["2147483648", 32],
      ["9223372036854775808", 64],
      ["", 32],
      ["+", 32],
      ["1.0", 64],
      [" 1", 32],
      ["0x10", 32],
    ] as const) {
      expect(() => javaParseInteger(text, width)).toThrow(new JavaNumberFormatError(`For input string: "${text}"`));
    }
  });

  test("agrees with a range check on every safe integer", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.constantFrom(8 as const, 16 as const, 32 as const, 64 as const),
        (n, width) => {
          const fits = n >= -(2 ** (width - 1)) && n < 2 ** (width - 1);
          if (fits) expect(javaParseInteger(String(n), width)).toBe(BigInt(n));
          else expect(() => javaParseInteger(String(n), width)).toThrow(JavaNumberFormatError);
        },
      ),
    );
  });
});
