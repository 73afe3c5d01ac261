import { afterEach, describe, expect, test } from "bun:test";
import { JavaPattern, JavaReplacement } from "#src/jvm/java-regex.ts";
import { PerInput, RegexTimeoutError, regexThreads } from "#src/jvm/regex-budget.ts";

const CATASTROPHIC = `${"a".repeat(60)}-`;
const budget = regexThreads.timeoutMs;
afterEach(() => (regexThreads.timeoutMs = budget));

describe("regex matches on threads under a time budget", () => {
  test("the same answers as matching here", async () => {
    const p = JavaPattern.compile("(?<db>[^.]+)\\.(?<table>.+)");
    expect(await p.matchesWithin("test", "shop.orders")).toBe(true);
    expect(await p.matchesWithin("test", "orders")).toBe(false);
    expect(await p.replaceFirstWithin("test", "shop.orders", JavaReplacement.compile("${table}_${db}", p))).toBe(
      "orders_shop",
    );
    const alternation = JavaPattern.compile("a|ab");
    expect(await alternation.replaceFirstWithin("test", "ab", JavaReplacement.compile("X", alternation))).toBe(
      alternation.replaceFirst("ab", "X"),
    );
  });

  test("a match over the budget fails naming its owner, the regex and the setting; the next match is answered", async () => {
    regexThreads.timeoutMs = 100;
    const p = JavaPattern.compile("(a+)+");
    const error = await p.matchesWithin("RegexRouter regex", CATASTROPHIC).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegexTimeoutError);
    expect((error as Error).message).toBe(
      `RegexRouter regex '(a+)+' did not finish matching '${CATASTROPHIC}' (61 characters) within regex.match.timeout.ms=100`,
    );
    expect(await p.matchesWithin("RegexRouter regex", "aaa")).toBe(true);
  });

  test("matches stuck on some threads do not hold up the others", async () => {
    regexThreads.timeoutMs = 500;
    const p = JavaPattern.compile("(a+)+");
    const order: string[] = [];
    const stuck = [1, 2].map((n) =>
      p.matchesWithin("stuck", CATASTROPHIC).catch((e: unknown) => order.push(`stuck ${n}: ${(e as Error).name}`)),
    );
    order.push(`quick: ${await p.matchesWithin("quick", "aa")}`);
    await Promise.all(stuck);
    expect(order).toEqual(["quick: true", "stuck 1: RegexTimeoutException", "stuck 2: RegexTimeoutException"]);
  });
});

describe("PerInput", () => {
  test("computes a topic once, failures included; answers known topics synchronously", async () => {
    const memo = new PerInput<number>();
    let calls = 0;
    expect(await memo.get("t", async () => ++calls)).toBe(1);
    expect(memo.get("t", async () => ++calls)).toBe(1);
    await expect(memo.get("bad", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(() => memo.get("bad", async () => ++calls)).toThrow("boom");
    expect(calls).toBe(1);
  });
});
