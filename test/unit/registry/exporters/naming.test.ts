// Which subjects an exporter takes, what the destination calls them, and how its definition is read
// from a request: pure rules, tested directly.
import { describe, expect, test } from "bun:test";
import { RegistryError } from "#src/registry/errors.ts";
import {
  autoContextOf,
  badContextName,
  badSubjectPattern,
  destinationSubject,
  nestedContext,
  selects,
} from "#src/registry/exporters/naming.ts";
import { hideSecrets, parseInfo } from "#src/registry/exporters/service.ts";

describe("subject selection", () => {
  test("`*` takes every subject of the default context, and only those", () => {
    expect(selects(["*"], "orders-value")).toBe(true);
    expect(selects(["*"], ":.prod:orders-value")).toBe(false);
  });

  test("names, prefixes and contexts", () => {
    expect(selects(["orders-value"], "orders-value")).toBe(true);
    expect(selects(["orders-value"], "orders-key")).toBe(false);
    expect(selects(["orders-*"], "orders-key")).toBe(true);
    expect(selects(["orders-*"], "payments-key")).toBe(false);
    expect(selects([":.prod:orders-*"], ":.prod:orders-key")).toBe(true);
    expect(selects([":.prod:orders-*"], "orders-key")).toBe(false);
    expect(selects([":.prod:*"], ":.prod:x")).toBe(true);
    expect(selects([":.prod:*"], ":.dev:x")).toBe(false);
  });

  test("`:*:` takes every subject of every context; `:*:p*` a prefix in any context", () => {
    expect(selects([":*:"], "a")).toBe(true);
    expect(selects([":*:"], ":.prod:a")).toBe(true);
    expect(selects([":*:a*"], ":.prod:ab")).toBe(true);
    expect(selects([":*:a*"], ":.prod:b")).toBe(false);
    expect(selects([":*:a*"], "ab")).toBe(true);
  });

  test("a '*' anywhere but last is refused", () => {
    expect(badSubjectPattern("a*b")).toBeDefined();
    expect(badSubjectPattern("")).toBeDefined();
    expect(badSubjectPattern("a*")).toBeUndefined();
    expect(badSubjectPattern(":*:")).toBeUndefined();
    expect(badSubjectPattern(":.prod:*")).toBeUndefined();
  });
});

describe("destination names", () => {
  const auto = ".lkc-1";

  test("NONE keeps the source's context; DEFAULT moves everything to the default context", () => {
    expect(destinationSubject("orders", { contextType: "NONE" }, auto)).toBe("orders");
    expect(destinationSubject(":.prod:orders", { contextType: "NONE" }, auto)).toBe(":.prod:orders");
    expect(destinationSubject(":.prod:orders", { contextType: "DEFAULT" }, auto)).toBe("orders");
  });

  test("CUSTOM and AUTO put the source's context under theirs", () => {
    expect(destinationSubject("orders", { contextType: "CUSTOM", context: "dr" }, auto)).toBe(":.dr:orders");
    expect(destinationSubject("orders", { contextType: "CUSTOM", context: ".dr" }, auto)).toBe(":.dr:orders");
    expect(destinationSubject(":.prod:orders", { contextType: "CUSTOM", context: "dr" }, auto)).toBe(
      ":.dr.prod:orders",
    );
    expect(destinationSubject("orders", { contextType: "AUTO" }, auto)).toBe(":.lkc-1:orders");
    expect(nestedContext(".a", ".")).toBe(".a");
    expect(nestedContext("a", ".b")).toBe(".a.b");
  });

  test("subjectRenameFormat renames the subject within its context", () => {
    expect(destinationSubject("orders", { contextType: "NONE", subjectRenameFormat: "dc_${subject}" }, auto)).toBe(
      "dc_orders",
    );
    expect(
      destinationSubject(
        ":.prod:orders",
        { contextType: "CUSTOM", context: "dr", subjectRenameFormat: "${subject}-copy" },
        auto,
      ),
    ).toBe(":.dr.prod:orders-copy");
    // Every placeholder is replaced.
    expect(destinationSubject("a", { contextType: "NONE", subjectRenameFormat: "${subject}_${subject}" }, auto)).toBe(
      "a_a",
    );
  });

  test("AUTO's context is the source cluster's id, made a context name", () => {
    expect(autoContextOf("MkU3OEVBNTcwNTJENDM2Qg")).toBe(".MkU3OEVBNTcwNTJENDM2Qg");
    expect(autoContextOf("a.b:c")).toBe(".a_b_c");
    expect(autoContextOf(undefined)).toBe(".sluice");
  });

  test("CUSTOM context names", () => {
    expect(badContextName("")).toBeDefined();
    expect(badContextName(".")).toBeDefined();
    expect(badContextName("a:b")).toBeDefined();
    expect(badContextName("a..b")).toBeDefined();
    expect(badContextName("dr")).toBeUndefined();
    expect(badContextName(".dr.eu-1")).toBeUndefined();
  });
});

describe("an exporter's definition from a request body", () => {
  const config = { "schema.registry.url": "http://dest:8081" };
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof RegistryError ? [err.status, err.errorCode] : err;
    }
    return undefined;
  };

  test("defaults: AUTO, every subject of the default context", () => {
    expect(parseInfo("e", { config }, undefined)).toEqual({
      name: "e",
      contextType: "AUTO",
      subjects: ["*"],
      config,
    });
  });

  test("Confluent's errors for bad input", () => {
    expect(code(() => parseInfo("e", {}, undefined))).toEqual([409, 40951]);
    expect(code(() => parseInfo("e", { config: {} }, undefined))).toEqual([409, 40951]);
    expect(code(() => parseInfo("e", { config: { "schema.registry.url": "ftp://x" } }, undefined))).toEqual([
      409, 40951,
    ]);
    expect(code(() => parseInfo("e", { config, contextType: "SOMETIMES" }, undefined))).toEqual([409, 40951]);
    expect(code(() => parseInfo("e", { config, contextType: "CUSTOM" }, undefined))).toEqual([409, 40951]);
    expect(code(() => parseInfo("e", { config, subjects: "orders" }, undefined))).toEqual([409, 40952]);
    expect(code(() => parseInfo("e", { config, subjects: ["a*b"] }, undefined))).toEqual([409, 40952]);
    expect(
      code(() => parseInfo("e", { config: { ...config, "basic.auth.credentials.source": "USER_INFO" } }, undefined)),
    ).toEqual([409, 40951]);
  });

  test("a trust store that cannot be read is refused when the exporter is created", () => {
    expect(
      code(() =>
        parseInfo(
          "e",
          { config: { ...config, "schema.registry.ssl.truststore.location": "/nonexistent/ca.pem" } },
          undefined,
        ),
      ),
    ).toEqual([409, 40951]);
  });

  test("an update keeps what it does not name and merges config entries", () => {
    const old = parseInfo("e", { config, contextType: "CUSTOM", context: "dr", subjects: ["a"] }, undefined);
    const updated = parseInfo("e", { subjects: ["b"], config: { "basic.auth.user.info": "u:p" } }, old);
    expect(updated).toEqual({
      name: "e",
      contextType: "CUSTOM",
      context: "dr",
      subjects: ["b"],
      config: { ...config, "basic.auth.user.info": "u:p" },
    });
  });

  test("secrets are hidden in what is answered", () => {
    expect(
      hideSecrets({
        "schema.registry.url": "https://user:pw@dest:8081,https://dest2:8081",
        "basic.auth.credentials.source": "USER_INFO",
        "basic.auth.user.info": "u:p",
        "bearer.auth.token": "t",
        "bearer.auth.client.secret": "s",
        "bearer.auth.client.id": "id",
        "schema.registry.ssl.truststore.password": "pw",
        "schema.registry.ssl.keystore.key": "-----BEGIN",
      }),
    ).toEqual({
      "schema.registry.url": "https://user:[hidden]@dest:8081,https://dest2:8081",
      "basic.auth.credentials.source": "USER_INFO",
      "basic.auth.user.info": "[hidden]",
      "bearer.auth.token": "[hidden]",
      "bearer.auth.client.secret": "[hidden]",
      "bearer.auth.client.id": "id",
      "schema.registry.ssl.truststore.password": "[hidden]",
      "schema.registry.ssl.keystore.key": "[hidden]",
    });
  });
});
