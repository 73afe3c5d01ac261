import { describe, expect, test } from "bun:test";
import { ConfigError } from "#src/platform/settings.ts";
import { JavaPattern, RegexRouter } from "#src/connect/transforms/index.ts";
import { configured, source } from "./helpers.ts";

async function route(regex: string, replacement: string, topic: string): Promise<string> {
  return (await configured(new RegexRouter(), { regex, replacement }).apply(source({ topic, value: "v" }))).topic;
}

describe("RegexRouter", () => {
  test("the spec's routing example: server.public.orders → orders", async () => {
    expect(await route("([^.]+)\\.([^.]+)\\.([^.]+)", "$3", "server.public.orders")).toBe("orders");
  });

  test("Kafka's RegexRouterTest cases", async () => {
    expect(await route("(.*)", "prefix-$1", "orig")).toBe("prefix-orig");
    expect(await route("(.*)", "$1-suffix", "orig")).toBe("orig-suffix");
    expect(await route("(.*)", "prefix-$1-suffix", "orig")).toBe("prefix-orig-suffix");
    expect(await route("(.*)-(.*)", "$2.$1", "orig-topic")).toBe("topic.orig");
    expect(await route("(.*)_(.*)_(.*)", "$3-$1", "a_b_c")).toBe("c-a");
    expect(await route("prefix-(.*)-suffix", "$1", "prefix-orig-suffix")).toBe("orig");
    expect(await route("^(.*)$", "$1-out", "a.b")).toBe("a.b-out");
  });

  test("full-match semantics: a partial match leaves the topic unchanged", async () => {
    expect(await route("orders", "x", "orders-2024")).toBe("orders-2024");
    expect(await route("orders.*", "x", "orders-2024")).toBe("x");
  });

  test("Java replacement syntax: escapes, named groups, multi-digit references", async () => {
    expect(await route("(.*)", "\\$1-$1", "t")).toBe("$1-t");
    expect(await route("(?<db>[^.]+)\\.(?<table>.+)", "${table}_${db}", "shop.orders")).toBe("orders_shop");
    // $10 is group 1 followed by "0" when there is no group 10.
    expect(await route("(a)(b)", "$10", "ab")).toBe("a0");
    // Java replaceFirst finds the first match, which may be shorter than the whole topic.
    expect(await route("a|ab", "X", "ab")).toBe("Xb");
    expect(await route("(?i)ORDERS", "o", "orders")).toBe("o");
  });

  test("settings validation", () => {
    expect(() => new RegexRouter().configure({ replacement: "x" })).toThrow(ConfigError);
    expect(() => new RegexRouter().configure({ regex: "(unclosed", replacement: "x" })).toThrow(/Invalid regex/);
    expect(() => new RegexRouter().configure({ regex: "(a)", replacement: "$2" })).toThrow(
      "Invalid value $2 for configuration replacement: No group 2",
    );
    expect(() => new RegexRouter().configure({ regex: "(a)", replacement: "x$" })).toThrow(
      "Illegal group reference: group index is missing",
    );
    expect(() => new RegexRouter().configure({ regex: "(a)", replacement: "${nope}" })).toThrow(
      "No group with name {nope}",
    );
  });

  test("JavaPattern translations", () => {
    expect(JavaPattern.compile("\\Qa.b\\E").matches("a.b")).toBe(true);
    expect(JavaPattern.compile("\\Qa.b\\E").matches("axb")).toBe(false);
    expect(JavaPattern.compile("\\Aab\\z").matches("ab")).toBe(true);
    expect(JavaPattern.compile("a++b").matches("aab")).toBe(true);
    expect(JavaPattern.compile("(a)(b)(?<c>c)").groupCount).toBe(3);
  });
});
