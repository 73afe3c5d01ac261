import { describe, expect, test } from "bun:test";
import { RegistryError } from "#src/registry/errors.ts";
import { configBody, configUpdateBody } from "#src/registry/http/entities.ts";
import { configInScope, readStoredConfig, storedConfigJson, updatedConfig } from "#src/registry/subject-config.ts";

const code = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (err instanceof RegistryError) return err.errorCode;
    throw err;
  }
  return undefined;
};

describe("a config updated by a PUT body (Confluent's ConfigValue.update)", () => {
  test("fields present replace, null clears, absent ones are kept", () => {
    const first = updatedConfig(undefined, {
      compatibility: "full",
      normalize: true,
      defaultMetadata: { properties: { o: "x" } },
      aliasForDeks: "a",
    });
    expect(configUpdateBody(first)).toEqual({
      aliasForDeks: "a",
      normalize: true,
      compatibility: "FULL",
      defaultMetadata: { properties: { o: "x" } },
    });
    const second = updatedConfig(first, { normalize: null, compatibilityGroup: "major" });
    expect(configBody(second)).toEqual({
      aliasForDeks: "a",
      compatibilityLevel: "FULL",
      compatibilityGroup: "major",
      defaultMetadata: { properties: { o: "x" } },
    });
    expect(configBody(updatedConfig(second, { compatibility: null }), "BACKWARD")).toMatchObject({
      compatibilityLevel: "BACKWARD",
    });
  });

  test("Confluent's error codes for bad fields", () => {
    expect(code(() => updatedConfig(undefined, { compatibility: "SIDEWAYS" }))).toBe(42203);
    expect(code(() => updatedConfig(undefined, { overrideRuleSet: { domainRules: [{ name: "r" }] } }))).toBe(42210);
    expect(code(() => updatedConfig(undefined, { normalize: "yes" }))).toBe(400);
    expect(code(() => updatedConfig(undefined, [] as unknown as Record<string, unknown>))).toBe(400);
  });
});

describe("the config in scope (Confluent's Config.mergeConfigs)", () => {
  const global = readStoredConfig({
    compatibilityLevel: "FULL",
    normalize: true,
    compatibilityGroup: "g",
    defaultMetadata: { properties: { from: "global" } },
  });
  test("a subject's own contract settings; its flags fall back field by field", () => {
    const subject = readStoredConfig({ validateFields: true, overrideMetadata: { properties: { from: "subject" } } });
    const scope = configInScope(global, subject);
    expect(scope.normalize).toBe(true);
    expect(scope.validateFields).toBe(true);
    expect(scope.compatibilityGroup).toBe("g");
    // Default/override contracts and the level are the subject's alone.
    expect(scope.defaultMetadata).toBeUndefined();
    expect(scope.overrideMetadata?.properties).toEqual({ from: "subject" });
    expect(scope.compatibilityLevel).toBeUndefined();
  });

  test("without a subject config, the global one", () => {
    expect(configInScope(global, undefined)).toBe(global);
    expect(configInScope(undefined, undefined)).toEqual({ kept: {} });
  });
});

test("the CONFIG record in Confluent's ConfigValue order, read back the same", () => {
  const config = updatedConfig(undefined, {
    overrideRuleSet: { domainRules: [{ name: "r", type: "CEL" }] },
    compatibility: "NONE",
    alias: "other",
  });
  const json = storedConfigJson("s", config);
  expect(JSON.stringify(json)).toBe(
    '{"subject":"s","alias":"other","compatibilityLevel":"NONE","overrideRuleSet":{"domainRules":[{"name":"r","kind":"TRANSFORM","mode":"WRITEREAD","type":"CEL","disabled":false}]}}',
  );
  expect(readStoredConfig(json)).toEqual(config);
  expect(storedConfigJson(null, readStoredConfig({ compatibilityLevel: "FULL" }))).toEqual({
    compatibilityLevel: "FULL",
  });
});
